# Sourced by scenario scripts. Runs inside the guest (LAB_ROOT=/lab) and, for bin/test-rxe's host side,
# on the host inside netns rxelab (LAB_ROOT = the run's share folder, which the guest sees as /lab).
LAB_ROOT=${LAB_ROOT:-/lab}
CAP=$LAB_ROOT/captures
# barriers of one run live in a folder of their own, so concurrent runs (other jobs) never meet
SYNC=${SYNC:-$LAB_ROOT/run/sync${LAB_JOB:+/$LAB_JOB}}
log() { echo "[$(date +%T.%3N)] $*"; }
# Every limit in the lab only ends a run that hangs: the steps of a scenario wait for each other's events
# (barriers, a listener, a joined group, a line a tool prints), never for a guessed time. A JVM in the
# emulated guest starts in seconds on an idle machine and in minutes on a loaded one, so each limit is a
# base figure times LAB_TIMEOUT_SCALE (the one knob; bin/test-rxe passes it to both sides). On success
# nothing waits for a limit, so a generous scale costs only time on a run that fails.
LAB_TIMEOUT_SCALE=${LAB_TIMEOUT_SCALE:-5}
# scaled SECONDS: the base limit SECONDS times LAB_TIMEOUT_SCALE
scaled() { echo $(( $1 * LAB_TIMEOUT_SCALE )); }
rxe_up() {
  for m in rdma_rxe ib_uverbs rdma_ucm ib_umad; do modprobe $m || log "modprobe $m failed"; done
  rdma link add rxe0 type rxe netdev eth0 || log "rdma link add failed"
  for i in $(seq 50); do [ -e /sys/class/infiniband/rxe0/ports/1/gids/1 ] && break; sleep 0.1; done
  log "rxe0 up: $(rdma link show rxe0/1)"
}
# index of the RoCEv2 GID that maps our IPv4 address (::ffff:a.b.c.d)
gid_idx() {
  local g i
  for g in /sys/class/infiniband/rxe0/ports/1/gids/*; do
    i=${g##*/}
    case $(cat $g) in 0000:0000:0000:0000:0000:ffff:*)
      [ "$(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$i 2>/dev/null)" = "RoCE v2" ] && { echo $i; return; };;
    esac
  done
  echo 1
}
# index of the RoCEv2 GID that is an IPv6 address of eth0 other than its link-local one (fd77::N in the lab);
# fails when there is none (yet: rxe adds it when the address is configured)
gid_idx6() {
  local g i
  for g in /sys/class/infiniband/rxe0/ports/1/gids/*; do
    i=${g##*/}
    case $(cat $g) in 0000:0000:0000:0000:0000:0000:0000:0000|0000:0000:0000:0000:0000:ffff:*|fe80:*) continue;; esac
    [ "$(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$i 2>/dev/null)" = "RoCE v2" ] && { echo $i; return 0; }
  done
  return 1
}
# barrier files on the shared 9p folder (the host and every guest of the run see it)
# post NAME / wait_for NAME [SECONDS]; every wait_* helper's SECONDS is a base limit, scaled as above
post()    { mkdir -p $SYNC; echo "$(date +%s.%N)" > "$SYNC/$1"; }
wait_for() { local n=$1 t i=0; t=$(scaled "${2:-120}"); [ -n "${VERBOSE_SYNC:-}" ] && log "wait_for $n"; while [ ! -e "$SYNC/$n" ]; do sleep 0.2; i=$((i+1)); [ $i -gt $((t*5)) ] && { log "timeout waiting for $n"; return 1; }; done; return 0; }
# wait_log FILE REGEX [SECONDS]: until a line matching REGEX appears in FILE (a server saying it is ready)
wait_log() { local f=$1 re=$2 t i=0; t=$(scaled "${3:-60}"); while ! grep -Eq -- "$re" "$f" 2>/dev/null; do sleep 0.1; i=$((i+1)); [ $i -gt $((t*10)) ] && { log "timeout waiting for /$re/ in $f"; return 1; }; done; return 0; }
# wait_tcp_listen PORT [SECONDS]: until something listens on TCP PORT (the pingpong tools' exchange socket)
wait_tcp_listen() { local p=$1 t i=0; t=$(scaled "${2:-60}"); while ! ss -Hltn "sport = :$p" | grep -q .; do sleep 0.1; i=$((i+1)); [ $i -gt $((t*10)) ] && { log "timeout waiting for a TCP listener on $p"; return 1; }; done; return 0; }
# wait_cm_listen [SECONDS]: until an rdma_cm id listens on rxe0 (rdma-core's rping/udaddy servers say nothing)
wait_cm_listen() { local t i=0; t=$(scaled "${1:-60}"); while ! rdma res show cm_id 2>/dev/null | grep -q 'state LISTEN'; do sleep 0.1; i=$((i+1)); [ $i -gt $((t*10)) ] && { log "timeout waiting for an rdma_cm listener"; return 1; }; done; return 0; }
# wait_maddr IFACE GROUP [SECONDS]: until IFACE has joined the IP multicast GROUP (a receiver's join is done)
wait_maddr() { local d=$1 g=$2 t i=0; t=$(scaled "${3:-60}"); while ! ip maddr show dev "$d" | grep -Eq "inet +${g//./\\.}( |\$)"; do sleep 0.1; i=$((i+1)); [ $i -gt $((t*10)) ] && { log "timeout waiting for $d to join $g"; return 1; }; done; return 0; }
# capture: cap_start NAME [iface] ; cap_stop
cap_start() {
  local name=$1 ifc=${2:-eth0}
  CAP_FILE=$CAP/$name.pcap
  tcpdump -i $ifc -U -n -s 0 -w /tmp/$name.pcap "${CAP_FILTER:-udp port 4791 or igmp}" >/tmp/$name.tcpdump.log 2>&1 &
  CAP_PID=$!
  sleep 1.5   # let tcpdump attach
}
cap_stop() {
  sleep 1
  kill -INT $CAP_PID 2>/dev/null; wait $CAP_PID 2>/dev/null
  cp /tmp/$(basename $CAP_FILE) $CAP_FILE
  log "capture $CAP_FILE: $(tail -3 /tmp/$(basename $CAP_FILE .pcap).tcpdump.log | tr '\n' ' ')"
}
# run a command with output to a file + console, with a time limit
runlog() { local out=$1; shift; log "RUN $*" | tee -a "$out"; timeout "$(scaled "${RUN_TMO:-120}")" "$@" >>"$out" 2>&1; local rc=$?; log "rc=$rc: $*" | tee -a "$out"; return $rc; }
