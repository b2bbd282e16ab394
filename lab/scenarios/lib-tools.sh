# Sourced by every scenario side after lab/guest/scenarios/lib.sh: how to run rdma4j and where logs go.
# PROJ is the project (the host's checkout, /mnt/proj in the guest); JAVA_HOME a JDK 25.
TOOLS_CP="$(ls "$PROJ"/rdma4j-tools/target/rdma4j-tools-*.jar | grep -v -E -- '-(sources|javadoc|tests)\.jar$' | head -n1):$PROJ/rdma4j-tools/target/lib/*"
# In the emulated guest a JVM's C2 compilations cost more CPU than these short runs win back (a tool starts in
# about 30 s there with C1 alone and 45 s with both on a loaded host): the guest's tools run on C1, with the
# serial collector (no GC threads to schedule on two vCPUs). A suite's env.sh may set RDMA4J_JAVA_OPTS, empty
# for the JVM's defaults (native-cost measures the JIT-compiled loop).
[ "$SIDE" = guest ] && RDMA4J_JAVA_OPTS=${RDMA4J_JAVA_OPTS-"-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}
# rdma4j_java: sets RDMA4J_JAVA to the command line that runs the tools as bin/rdma4j does, without its build
# check (the project is built); a JVM that crashes leaves its hs_err file with the run's results, where the host
# can read it. rdma4j TOOL ARGS... runs it; a caller that needs it under timeout(1) expands the array itself.
rdma4j_java() { RDMA4J_JAVA=("$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
  -XX:ErrorFile="$RES/hs_err_${SIDE}_%p.log" ${RDMA4J_JAVA_OPTS:-} -cp "$TOOLS_CP" io.rdma4j.tools.Main); }
rdma4j() { rdma4j_java; "${RDMA4J_JAVA[@]}" "$@"; }
# on the host, the soft device takes the host's lab address unless a tool names another
[ "$SIDE" = host ] && export RDMA4J_SOFT_ADDRESS=$HOST_IP
# line-buffered output for C tools whose stdout is a file (so wait_log sees what they print at once)
lb() { stdbuf -oL -eL "$@"; }
# check_out FILE REGEX...: FILE has a line matching each REGEX (what a tool prints when it really worked)
check_out() { local f=$1 re; shift; for re in "$@"; do grep -Eq -- "$re" "$f" || { log "missing /$re/ in $f"; return 1; }; done; }

# serve OUTFILE CMD...: a server in the background (SERVER_PID), its output in OUTFILE and, as it comes, in
# the side's log with "[server]" in front (so a side killed on overrun still shows what it printed)
serve() { local out=$1; shift; log "SERVE $*"; "$@" > "$out" 2>&1 & SERVER_PID=$!
  tail -n +1 -f --pid=$SERVER_PID "$out" | sed -u 's/^/[server] /' & }
# finish OUTFILE: wait for the server, return its exit code
finish() { wait $SERVER_PID; local rc=$?; wait; log "server rc=$rc"; return $rc; }
# client OUTFILE CMD...: a client in the foreground, output in OUTFILE and the log, exit code returned
client() { local out=$1 rc; shift; log "RUN $*"; "$@" 2>&1 | tee "$out"; rc=${PIPESTATUS[0]}; log "client rc=$rc"; return $rc; }

# The guest's side of a scenario is rdma-core's C tools on rxe0, or with GUEST_TOOLS=native (a suite's
# env.sh) rdma4j's own tools on rxe0 through the native provider; the host's side is always rdma4j's
# software device on HOST_IP. Each g_* runs the guest's tool with the device named as rdma-core's do.
GUEST_TOOLS=${GUEST_TOOLS:-rdmacore}
# The ping-pong tools exchange addresses over TCP, the server listening on every address: the host's sides of
# all runs share netns rxelab, so each run takes a port of its own (18515 + the guest address's last octet)
PP_PORT=$((18515 + ${GUEST_IP##*.}))
g_pingpong() { local kind=$1; shift
  if [ "$GUEST_TOOLS" = native ]; then rdma4j ${kind}_pingpong -d rxe0 -g "$(gid_idx)" -p "$PP_PORT" "$@"
  else lb ibv_${kind}_pingpong -d rxe0 -g "$(gid_idx)" -p "$PP_PORT" "$@"; fi; }
g_cm() { local tool=$1; shift
  if [ "$GUEST_TOOLS" = native ]; then rdma4j "$tool" "$@" $(mckey_limit "$tool"); else lb "$tool" "$@"; fi; }
# mckey_limit TOOL: rdma4j's mckey gives up joining or receiving after --timeout (30 s unless told), which a
# JVM starting in the emulated guest on a loaded machine can take on its own; the lab's scaled limit instead
# (rdma-core's mckey has no limit: the scenario's ends it)
mckey_limit() { [ "$1" = mckey ] && echo "--timeout $(scaled 60)"; }
h_pingpong() { local kind=$1; shift; rdma4j ${kind}_pingpong --address "$HOST_IP" -p "$PP_PORT" "$@"; }

# pp_guest_serves KIND ARGS...: the guest's tool serves, the host's rdma4j connects (one side each)
pp_guest_serves_guest() { local o; o=$(mktemp); serve "$o" g_pingpong "$@"; wait_tcp_listen "$PP_PORT" || return 1
  post ready; finish "$o" && check_out "$o" 'iters in'; }
pp_guest_serves_host() { local o kind=$1; shift; o=$(mktemp); wait_for ready 90 || return 1
  client "$o" h_pingpong "$kind" "$@" "$GUEST_IP" && check_out "$o" 'iters in'; }
pp_host_serves_host() { local o; o=$(mktemp); serve "$o" h_pingpong "$@"; wait_tcp_listen "$PP_PORT" || return 1
  post ready; finish "$o" && check_out "$o" 'iters in'; }
pp_host_serves_guest() { local o kind=$1; shift; o=$(mktemp); wait_for ready 90 || return 1
  client "$o" g_pingpong "$kind" "$@" "$HOST_IP" && check_out "$o" 'iters in'; }

# rping, udaddy, mckey: the guest's side waits on what the kernel shows (an rdma_cm id in LISTEN, the IP
# group joined on eth0), which holds for rdma-core's tools and rdma4j's native ones alike; the host's soft
# rdma4j says it listens (-d / --debug) and joins the group on br0.
rping_guest_serves_guest() { local o; o=$(mktemp); serve "$o" g_cm rping -s -v -a "$GUEST_IP" "$@"
  wait_cm_listen || return 1; post ready; finish "$o" && check_out "$o" 'ping data'; }
rping_guest_serves_host() { local o; o=$(mktemp); wait_for ready 90 || return 1
  client "$o" rdma4j rping -c -vV -a "$GUEST_IP" -I "$HOST_IP" "$@" && check_out "$o" 'ping data'; }
rping_host_serves_host() { local o; o=$(mktemp); serve "$o" rdma4j rping -s -v -d -a "$HOST_IP" "$@"
  wait_log "$o" 'listening on' || return 1; post ready; finish "$o" && check_out "$o" 'ping data'; }
rping_host_serves_guest() { local o; o=$(mktemp); wait_for ready 90 || return 1
  client "$o" g_cm rping -c -vV -a "$HOST_IP" -I "$GUEST_IP" "$@" && check_out "$o" 'ping data'; }

udaddy_guest_serves_guest() { local o; o=$(mktemp); serve "$o" g_cm udaddy -b "$GUEST_IP" "$@"
  wait_cm_listen || return 1; post ready; finish "$o" && check_out "$o" 'data transfers complete'; }
udaddy_guest_serves_host() { local o; o=$(mktemp); wait_for ready 90 || return 1
  client "$o" rdma4j udaddy -s "$GUEST_IP" -b "$HOST_IP" "$@" && check_out "$o" 'data transfers complete'; }
udaddy_host_serves_host() { local o; o=$(mktemp); serve "$o" rdma4j udaddy --debug -b "$HOST_IP" "$@"
  wait_log "$o" 'listening on' || return 1; post ready; finish "$o" && check_out "$o" 'data transfers complete'; }
udaddy_host_serves_guest() { local o; o=$(mktemp); wait_for ready 90 || return 1
  client "$o" g_cm udaddy -s "$HOST_IP" -b "$GUEST_IP" "$@" && check_out "$o" 'data transfers complete'; }

# rdma_server / rdma_client (librdmacm's synchronous endpoint examples): one 16-byte message each way; the C
# tools print nothing between "start" and "end 0", so "end 0" on both sides is the check
rdma_server_guest_serves_guest() { local o; o=$(mktemp); serve "$o" g_cm rdma_server -s "$GUEST_IP" "$@"
  wait_cm_listen || return 1; post ready; finish "$o" && check_out "$o" '^rdma_server: end 0$'; }
rdma_server_guest_serves_host() { local o; o=$(mktemp); wait_for ready 90 || return 1
  client "$o" rdma4j rdma_client -s "$GUEST_IP" -b "$HOST_IP" "$@" && check_out "$o" '^rdma_client: end 0$'; }
rdma_server_host_serves_host() { local o; o=$(mktemp); serve "$o" rdma4j rdma_server --debug -s "$HOST_IP" "$@"
  wait_log "$o" 'listening on' || return 1; post ready; finish "$o" && check_out "$o" '^rdma_server: end 0$'; }
rdma_server_host_serves_guest() { local o; o=$(mktemp); wait_for ready 90 || return 1
  client "$o" g_cm rdma_client -s "$HOST_IP" "$@" && check_out "$o" '^rdma_client: end 0$'; }
# gRPC's hello-world over rdma4j's Netty transport (rdma4j-examples' GrpcHello, which the project's build packages
# with its libraries, both engines among them): the guest's side always rdma4j
# through the native provider on rxe0, the host's the soft device. The server serves until its standard input
# ends, which here is the other side's "done"; each call may take the lab's scaled limit (a first call in the
# emulated guest loads and compiles much of gRPC and Netty).
EXAMPLES_CP="$(ls "$PROJ"/rdma4j-examples/target/rdma4j-examples-*.jar | grep -v -E -- '-(sources|javadoc|tests)\.jar$' | head -n1):$PROJ/rdma4j-examples/target/lib/*"
GRPC_PORT=$((PP_PORT + 1000))
grpc_hello() { "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -XX:ErrorFile="$RES/hs_err_${SIDE}_%p.log" \
  ${RDMA4J_JAVA_OPTS:-} -Drdma4j.examples.grpc.deadlineSeconds="$(scaled 60)" -cp "$EXAMPLES_CP" \
  io.rdma4j.examples.GrpcHello "$@"; }
grpc_serve_until() { local signal=$1; shift; wait_for "$signal" 240 | grpc_hello server "$@"; }
# rxe_pkts: packets rxe0 sent and received so far (the guest's side checks that the calls crossed the kernel's rxe)
rxe_pkts() { local c=/sys/class/infiniband/rxe0/ports/1/hw_counters; echo $(( $(cat $c/sent_pkts) + $(cat $c/rcvd_pkts) )); }
rxe_moved() { [ "$SIDE" = guest ] || return 0; local now; now=$(rxe_pkts); log "rxe0 packets: $1 before, $now after"
  [ "$now" -gt "$1" ]; }
grpc_server_side() { local me=$1 o before=0; o=$(mktemp); [ "$SIDE" = guest ] && before=$(rxe_pkts)
  serve "$o" grpc_serve_until grpc-done "$me" "$GRPC_PORT"
  wait_log "$o" 'listening on' 300 || return 1; post ready; finish "$o" &&
  check_out "$o" 'listening on' 'gRPC server stopped' && rxe_moved "$before"; }
grpc_client_side() { local server=$1 me=$2 o rc before=0; o=$(mktemp); [ "$SIDE" = guest ] && before=$(rxe_pkts)
  wait_for ready 300 || return 1
  client "$o" grpc_hello client "$server" "$GRPC_PORT" "$me"; rc=$?; post grpc-done
  [ $rc = 0 ] && check_out "$o" '^SayHello: Hello world' '^Chat: Hello Ada' '^Chat: Hello Grace' '^Chat: Hello Edsger' &&
  rxe_moved "$before"; }
# cmatose: rdma-core installs it as ucmatose (rdma4j takes both names); the server sends first and disconnects
cmatose_guest_serves_guest() { local o; o=$(mktemp); serve "$o" g_cm ucmatose -b "$GUEST_IP" "$@"
  wait_cm_listen || return 1; post ready; finish "$o" && check_out "$o" 'data transfers complete' '^disconnected'; }
cmatose_guest_serves_host() { local o; o=$(mktemp); wait_for ready 90 || return 1
  client "$o" rdma4j cmatose -s "$GUEST_IP" -b "$HOST_IP" "$@" && check_out "$o" 'data transfers complete'; }
cmatose_host_serves_host() { local o; o=$(mktemp); serve "$o" rdma4j cmatose --debug -b "$HOST_IP" "$@"
  wait_log "$o" 'listening on' || return 1; post ready; finish "$o" &&
  check_out "$o" 'data transfers complete' '^disconnected'; }
cmatose_host_serves_guest() { local o; o=$(mktemp); wait_for ready 90 || return 1
  client "$o" g_cm ucmatose -s "$HOST_IP" -b "$GUEST_IP" "$@" && check_out "$o" 'data transfers complete'; }

# run_group 239.77.X.Y: the scenario's group made the run's own, 239.G.X.Y with G the guest address's last
# octet: the lab's bridge floods multicast to every port, and two runs at once (each with its own guest
# address) must not receive each other's messages
run_group() { echo "239.${GUEST_IP##*.}.${1#239.77.}"; }
# pt_mgid 239.77.X.Y: the run's group as perftest's -M writes an MGID (16 bytes; ::ffff:239.G.X.Y)
pt_mgid() { local g; g=$(run_group "$1"); echo "0:0:0:0:0:0:0:0:0:0:255:255:${g//./:}"; }
# mckey GROUP [ARGS]: receivers join first, then the sender sends. A receiver is ready once it says
# "receiving data transfers": rdma-core's mckey and rdma4j's print it after the join's event was handled
# (librdmacm attaches the QP to the group only then) and the receives are posted; the group showing on the
# interface says only that the kernel joined the IP group, which comes first.
mckey_guest_receives_guest() { local o g; g=$(run_group "$1"); shift; o=$(mktemp); serve "$o" g_cm mckey -m "$g" -b "$GUEST_IP" "$@"
  wait_maddr eth0 "$g" || return 1; wait_log "$o" 'receiving data transfers' || return 1
  post ready; finish "$o" && check_out "$o" 'data transfers complete'; }
mckey_guest_receives_host() { local o g; g=$(run_group "$1"); shift; o=$(mktemp); wait_for ready 90 || return 1
  client "$o" rdma4j mckey -m "$g" -b "$HOST_IP" -s "$@" $(mckey_limit mckey) && check_out "$o" 'data transfers complete'; }
mckey_host_receives_host() { local o g; g=$(run_group "$1"); shift; o=$(mktemp)
  serve "$o" rdma4j mckey -m "$g" -b "$HOST_IP" "$@" $(mckey_limit mckey)
  wait_maddr br0 "$g" || return 1; wait_log "$o" 'receiving data transfers' || return 1
  post ready; finish "$o" && check_out "$o" 'data transfers complete'; }
mckey_host_receives_guest() { local o g; g=$(run_group "$1"); shift; o=$(mktemp); wait_for ready 90 || return 1
  client "$o" g_cm mckey -m "$g" -b "$GUEST_IP" -s "$@" && check_out "$o" 'data transfers complete'; }

# junit ARGS...: rdma4j-rdmacore's tests in this JVM's world (the guest: rxe0 is the native device), with
# JUnit's console launcher (bin/test-rxe copies it to target/lab); ARGS select, e.g. --select-class=...
junit() {
  local jar cp p=$PROJ
  jar=$(ls "$p"/target/lab/junit-platform-console-standalone-*.jar | tail -1)
  cp=$p/rdma4j-api/target/classes:$p/rdma4j-stat/target/classes:$p/rdma4j-soft/target/classes
  cp=$cp:$p/rdma4j-rdmacore/target/classes
  # the test support holds PackageGraph, which every module's PackageCyclesTest uses
  cp=$cp:$p/rdma4j-rdmacore/target/test-classes:$p/rdma4j-test-support/target/classes
  # rxe sends a group's datagrams through the IP stack: multicast needs a route on the RDMA netdev
  [ "$SIDE" = guest ] && { ip route add 224.0.0.0/4 dev eth0 2>/dev/null || true; ulimit -l unlimited; }
  "$JAVA_HOME/bin/java" -Xss1m --enable-native-access=ALL-UNNAMED -jar "$jar" execute --disable-banner \
    --details=tree --fail-if-no-tests --class-path="$cp" --reports-dir="/tmp/junit-$$" "$@"
}

# interleaved WARMUP KIND ARGS...: native-cost's side-by-side measurement in one guest: rdma-core's KIND
# ping-pong, then four times rdma4j's (after WARMUP untimed exchanges) and rdma-core's again, so that each rdma4j
# figure has a C run on either side of it and the host's drift falls on both
interleaved() { local warmup=$1 kind=$2 i; shift 2
  pp_pair rdmacore rdmacore "$kind" "$@" || return 1
  for i in 1 2 3 4; do
    pp_pair native native "$kind" "$@" --warmup "$warmup" && pp_pair rdmacore rdmacore "$kind" "$@" || return 1
  done; }

# with_tools native|rdmacore CMD...: run a g_* helper with the given guest tools (two kinds in one guest)
with_tools() { local GUEST_TOOLS=$1; shift; "$@"; }
# Guest-only pairs: SERVER and CLIENT are native or rdmacore, both on rxe0 at GUEST_IP.
pp_pair() { local s=$1 c=$2 kind=$3 o1 o2 rc; shift 3; o1=$(mktemp); o2=$(mktemp)
  serve "$o1" with_tools "$s" g_pingpong "$kind" "$@"; wait_tcp_listen "$PP_PORT" || return 1
  log "client ($c)"; client "$o2" with_tools "$c" g_pingpong "$kind" "$@" "$GUEST_IP"; rc=$?
  finish "$o1" && [ $rc = 0 ] &&
  check_out "$o1" 'iters in' && check_out "$o2" 'iters in'; }
rping_pair() { local s=$1 c=$2 o1 o2 rc; shift 2; o1=$(mktemp); o2=$(mktemp)
  serve "$o1" with_tools "$s" g_cm rping -s -v -a "$GUEST_IP" "$@"; wait_cm_listen || return 1
  client "$o2" with_tools "$c" g_cm rping -c -vV -a "$GUEST_IP" "$@"; rc=$?
  finish "$o1" && [ $rc = 0 ] &&
  check_out "$o2" 'ping data'; }
udaddy_pair() { local s=$1 c=$2 o1 o2 rc; shift 2; o1=$(mktemp); o2=$(mktemp)
  serve "$o1" with_tools "$s" g_cm udaddy -b "$GUEST_IP" "$@"; wait_cm_listen || return 1
  client "$o2" with_tools "$c" g_cm udaddy -s "$GUEST_IP" -b "$GUEST_IP" "$@"; rc=$?
  finish "$o1" && [ $rc = 0 ] &&
  check_out "$o1" 'data transfers complete' && check_out "$o2" 'data transfers complete'; }
mckey_pair() { local r=$1 snd=$2 g o1 o2 rc; g=$(run_group "$3"); shift 3; o1=$(mktemp); o2=$(mktemp)
  serve "$o1" with_tools "$r" g_cm mckey -m "$g" -b "$GUEST_IP" -C 10; wait_maddr eth0 "$g" || return 1
  wait_log "$o1" 'receiving data transfers' || return 1
  client "$o2" with_tools "$snd" g_cm mckey -m "$g" -b "$GUEST_IP" -s -C 10 "$@"; rc=$?
  finish "$o1" && [ $rc = 0 ] &&
  check_out "$o1" 'data transfers complete'; }

# IPv6 (the *-ipv6 scenarios): the lab's hosts are fd77::N for 10.77.0.N (N's digits read as hex), on a /64.
# ipv6_up gives this side its address: the guest's eth0 (rxe then lists it as a GID) or, on the host, br0 in
# netns rxelab, where netns.sh turns IPv6 off for the lab's IPv4 runs (one interface back on is enough).
GUEST_IP6=fd77::${GUEST_IP##*.}
HOST_IP6=fd77::${HOST_IP##*.}
ipv6_up() {
  if [ "$SIDE" = guest ]; then
    sysctl -qw net.ipv6.conf.eth0.disable_ipv6=0
    ip -6 addr replace "$GUEST_IP6/64" dev eth0 nodad
    local i=0; while ! gid_idx6 >/dev/null; do sleep 0.1; i=$((i+1)); [ $i -gt 100 ] && { log "no IPv6 GID on rxe0"; return 1; }; done
    log "eth0 $GUEST_IP6, rxe0 GID index $(gid_idx6)"
  else
    sysctl -qw net.ipv6.conf.br0.disable_ipv6=0
    ip -6 addr replace "$HOST_IP6/64" dev br0 nodad
    log "br0 $HOST_IP6"
  fi
}
# The tools swap QPN, PSN and GID over TCP to the IPv4 address (rdma-core's server listens on 0.0.0.0); the
# GIDs they swap, and so every RoCEv2 packet, are IPv6.
# (their limit, as every limit, scaled by LAB_TIMEOUT_SCALE: a loaded host once let a fixed 60 s end the host's
# server while the emulated guest was still starting its client; the port is the run's own, as for IPv4)
g_pingpong6() { local kind=$1; shift
  if [ "$GUEST_TOOLS" = native ]; then rdma4j ${kind}_pingpong -d rxe0 -g "$(gid_idx6)" -p "$PP_PORT" "$@"
  else lb timeout "$(scaled 60)" ibv_${kind}_pingpong -d rxe0 -g "$(gid_idx6)" -p "$PP_PORT" "$@"; fi; }
h_pingpong6() { local kind=$1; shift; rdma4j_java
  timeout "$(scaled 60)" "${RDMA4J_JAVA[@]}" ${kind}_pingpong --address "$HOST_IP6" -p "$PP_PORT" "$@"; }
# rxe's counters, one "name value" line each (after a run: what rxe sent, received and dropped)
rxe_counters() { local f; for f in /sys/class/infiniband/rxe0/ports/1/hw_counters/*; do echo "${f##*/} $(cat $f)"; done; }
pp6_guest_serves_guest() { local o; o=$(mktemp); ipv6_up || return 1; serve "$o" g_pingpong6 "$@"
  wait_tcp_listen "$PP_PORT" || return 1; post ready; finish "$o" && check_out "$o" 'iters in'; }
# the host's count of IPv6 UDP datagrams dropped for their checksum: rxe sends IPv6 UDP with checksum 0, which
# Linux takes only on a socket with UDP_NO_CHECK6_RX (rxe's own has it; a JDK socket cannot set it)
udp6_csum_errors() { awk '/^Udp6InCsumErrors/ {print $2}' /proc/net/snmp6; }
pp6_guest_serves_host() { local o kind=$1 e rc; shift; o=$(mktemp); ipv6_up || return 1; wait_for ready 180 || return 1
  e=$(udp6_csum_errors); client "$o" h_pingpong6 "$kind" "$@" "$GUEST_IP" && check_out "$o" 'iters in'; rc=$?
  log "Udp6InCsumErrors +$(( $(udp6_csum_errors) - e ))"; return $rc; }
pp6_host_serves_host() { local o e rc; o=$(mktemp); ipv6_up || return 1; e=$(udp6_csum_errors); serve "$o" h_pingpong6 "$@"
  wait_tcp_listen "$PP_PORT" || return 1; post ready; finish "$o" && check_out "$o" 'iters in'; rc=$?
  log "Udp6InCsumErrors +$(( $(udp6_csum_errors) - e ))"; return $rc; }
pp6_host_serves_guest() { local o kind=$1; shift; o=$(mktemp); ipv6_up || return 1; wait_for ready 180 || return 1
  client "$o" g_pingpong6 "$kind" "$@" "$HOST_IP" && check_out "$o" 'iters in'; }

# perftest (the perftest-* scenarios): the guest's ib_TEST against `rdma4j perf ib_TEST` on the host (perftest's
# own TCP exchange), either side serving, the same flags on both. Each side prints perftest's result table; the
# check is its row (bytes, iterations, figures), or for a READ or atomic server, which measures nothing, the rule
# that closes its table. -F: perftest's latency tools otherwise stop on the emulated CPU's varying clock.
PT_ROW='^ *[0-9]+ +[0-9]+ +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]+'
# (with GUEST_TOOLS=native the guest's side is rdma4j perf ib_TEST too, through the native provider on rxe0)
# The guest's RC QPs wait about 1 s for an ACK (-u 18), not perftest's 67 ms: a guest slowed by a loaded host
# took longer than 67 ms to send one 64 KiB message itself, and the 6.1 kernel's rxe, retrying that way twice
# over one message, resent it as an empty SEND_ONLY and every packet after it one PSN late, which the host's
# responder then rightly refused (lab/README.md, "rxe resends a message one PSN late"). With -R rdma_cm sets the
# timeout (rdma4j perf refuses -u there).
g_ack_timeout() { case " $* " in *" -R "*) ;; *) echo "-u 18" ;; esac; }
g_perftest() { local t=$1; shift
  # shellcheck disable=SC2046
  if [ "$GUEST_TOOLS" = native ]; then rdma4j_java
    timeout "$(scaled 120)" "${RDMA4J_JAVA[@]}" perf ib_$t -d rxe0 -x "$(gid_idx)" -p "$PP_PORT" -F $(g_ack_timeout "$@") "$@"
  else lb timeout "$(scaled 120)" ib_$t -d rxe0 -x "$(gid_idx)" -p "$PP_PORT" -F $(g_ack_timeout "$@") "$@"; fi; }
h_perftest() { local t=$1; shift; rdma4j_java
  timeout "$(scaled 120)" "${RDMA4J_JAVA[@]}" perf ib_$t --address "$HOST_IP" -p "$PP_PORT" "$@"; }
# A latency row of a perftest whose clock calibration failed in the guest ("Correlation coefficient r^2: ... < 0.9"):
# its times read inf, though the run went through
PT_ROW_UNTIMED='^ *[0-9]+ +[0-9]+ +inf +inf +inf'
# pt_check TEST SIDE OUT: the row, except on the server of a test only the client measures; with perftest's
# calibration failed, its untimed row
pt_check() { case "$1:$2" in read_lat:server|atomic_lat:server) check_out "$3" '^-{20,}' ;;
  *) if grep -Eq 'Correlation coefficient r\^2: [0-9.]+ < 0\.9' "$3" && ! grep -Eq -- "$PT_ROW" "$3"; then
       check_out "$3" "$PT_ROW_UNTIMED"; else check_out "$3" "$PT_ROW"; fi ;; esac; }
pt_guest_serves_guest() { local o t=$1; o=$(mktemp); serve "$o" g_perftest "$@"; wait_tcp_listen "$PP_PORT" 180 || return 1
  post ready; finish "$o" && pt_check "$t" server "$o"; }
pt_guest_serves_host() { local o t=$1; shift; o=$(mktemp); wait_for ready 90 || return 1
  client "$o" h_perftest "$t" "$@" "$GUEST_IP" && pt_check "$t" client "$o"; }
pt_host_serves_host() { local o t=$1; o=$(mktemp); serve "$o" h_perftest "$@"; wait_log "$o" 'waiting for a client' || return 1
  post ready; finish "$o" && pt_check "$t" server "$o"; }
pt_host_serves_guest() { local o t=$1; shift; o=$(mktemp); wait_for ready 90 || return 1
  client "$o" g_perftest "$t" "$@" "$HOST_IP" && pt_check "$t" client "$o"; }
# perftest -R (the perftest-rcm-* scenarios): the same pairs meeting through rdma_cm on PP_PORT; perftest's server
# says nothing until a client came, so the guest's is ready when an rdma_cm id listens on rxe0
ptr_guest_serves_guest() { local o t=$1; o=$(mktemp); serve "$o" g_perftest "$@"; wait_cm_listen 180 || return 1
  post ready; finish "$o" && pt_check "$t" server "$o"; }
# cmtime (librdmacm's connection-setup timer): rdma-core 44's (the guest's) has no out-of-band TCP meeting, no
# warm-up, and a server that prints nothing and never exits, so against it the host's rdma4j takes --no-oob and the
# guest's server is stopped once the host's client is done; with GUEST_TOOLS=native both sides are rdma4j's and
# speak the newer form (TCP meeting on the same port, a one-connection warm-up, a table on both sides)
CMT_PORT=$((PP_PORT + 2000))
cmt_oob() { [ "$GUEST_TOOLS" = native ] || echo --no-oob; }
# the connect and disconnect rows of either tool's table ("connect      :  12.34 ..." or "cm connect   12 ...")
CMT_ROWS=('^(cm )?connect +:? *[0-9]' '^disconnect +:? *[0-9]')
cmtime_guest_serves_guest() { local o; o=$(mktemp); serve "$o" g_cm cmtime -b "$GUEST_IP" -p "$CMT_PORT" "$@"
  wait_cm_listen || return 1; post ready
  if [ "$GUEST_TOOLS" = native ]; then finish "$o" && check_out "$o" "${CMT_ROWS[@]}"; return; fi
  wait_for cmtime-done 120 || return 1
  kill -0 "$SERVER_PID" 2>/dev/null || { log "cmtime's server ended before the client was done"; finish "$o"; return 1; }
  kill "$SERVER_PID"; wait; log "cmtime's server stopped (it never exits)"; }
cmtime_guest_serves_host() { local o rc; o=$(mktemp); wait_for ready 90 || return 1
  client "$o" rdma4j cmtime $(cmt_oob) -s "$GUEST_IP" -b "$HOST_IP" -p "$CMT_PORT" "$@"; rc=$?; post cmtime-done
  [ $rc = 0 ] && check_out "$o" "${CMT_ROWS[@]}"; }
cmtime_host_serves_host() { local o; o=$(mktemp); serve "$o" rdma4j cmtime $(cmt_oob) -b "$HOST_IP" -p "$CMT_PORT" "$@"
  wait_log "$o" '^(Server warmup|Accept \()' || return 1; post ready; finish "$o" && check_out "$o" "${CMT_ROWS[@]}"; }
cmtime_host_serves_guest() { local o; o=$(mktemp); wait_for ready 90 || return 1
  client "$o" g_cm cmtime -s "$HOST_IP" -b "$GUEST_IP" -p "$CMT_PORT" "$@" && check_out "$o" "${CMT_ROWS[@]}"; }
# rmcast (io.rdma4j.rmcast's reliable multicast, rdma4j on both sides: the guest's native provider on rxe0, the
# host's soft device): the subscriber is ready once its join shows (the guest's IP membership on eth0, the host's
# "joined" line); the publisher waits for one member, sends, and serves repairs until the member leaves. Both are
# bounded (the subscriber's --timeout prints its counters; the publisher waits for a member that may never come: it
# runs under timeout --foreground, which stays in the side's process group, so the runner's kill reaches it too),
# and the guest's side logs rxe0's counters and the CM ids and QPs, which show where a cross-engine run stops.
# a JVM in the emulated guest stalls for seconds on a loaded host, longer than rmcast's 2 s member and publisher
# timeouts (a stalled peer is dropped, comes back and reports a loss): both sides take the lab's scaled liveness
# and the publisher serves repairs until its member has all (it leaves) or --linger ends: 5 s by default, less than
# an emulated subscriber needs to catch up on what it missed, so the lab's scaled figure too
rmc_live() { echo "--liveness $(( $(scaled 4) * 1000 ))"; }
RMC_ROWS_SUB='^rmcast_sub: delivered [0-9]+ messages, [0-9]+ bytes, 0 fragments lost'
rmc_state() { [ "$SIDE" = guest ] || return 0; log "rxe0 $1: $(rxe_counters | tr '\n' ' ')"
  rdma res show cm_id 2>&1 | sed 's/^/[cm_id] /'; rdma res show qp 2>&1 | sed 's/^/[qp] /'; }
rmcast_sub_side() { local me=$1 g n=$3 o rc; g=$(run_group "$2"); shift 3; o=$(mktemp); rmc_state before
  serve "$o" rdma4j rmcast_sub -b "$me" -m "$g" -n "$n" --timeout "$(scaled 120)" $(rmc_live) "$@"
  if [ "$SIDE" = guest ]; then wait_maddr eth0 "$g" 180 || return 1; else wait_log "$o" '^rmcast_sub: joined' 180 || return 1; fi
  post ready; finish "$o"; rc=$?; rmc_state after
  [ $rc = 0 ] && check_out "$o" "^rmcast_sub: delivered $n messages" "$RMC_ROWS_SUB"; }
rmcast_pub_side() { local me=$1 g n=$3 o rc; g=$(run_group "$2"); shift 3; o=$(mktemp); wait_for ready 180 || return 1
  rdma4j_java; rmc_state before
  client "$o" timeout --foreground "$(scaled 100)" "${RDMA4J_JAVA[@]}" rmcast_pub -b "$me" -m "$g" -n "$n" --min-group 1 $(rmc_live) --linger "$(scaled 12)" "$@"; rc=$?
  rmc_state after; [ $rc = 0 ] && check_out "$o" "^rmcast_pub: sent $n messages"; }
