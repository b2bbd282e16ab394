# probe (not a pass/fail interop scenario): perftest's -g (UD SEND to a multicast group) with both of its sides in
# the guest on rxe0, for what rxe does with it; the host captures what leaves the guest on the tap.
mcg_try() { local label=$1 o1 o2; shift; o1=$(mktemp); o2=$(mktemp)
  log "== $label: ib_send_bw -c UD -g $*"
  serve "$o1" lb timeout 40 ib_send_bw -d rxe0 -p "$PP_PORT" -F -c UD -g -s 512 -n 200 "$@"
  wait_tcp_listen "$PP_PORT" || return 1
  client "$o2" lb timeout 40 ib_send_bw -d rxe0 -p "$PP_PORT" -F -c UD -g -s 512 -n 200 "$@" "$GUEST_IP"
  finish "$o1"; log "maddr eth0:"; ip maddr show dev eth0 | sed 's/^/  /'
  log "rxe0 counters:"; rdma statistic show link rxe0/1 | tr ' ' '\n' | paste - - | grep -E 'sent_pkts|rcvd_pkts|duplicate|seq_err|rdma_recvs|rdma_sends' | tr '\n' ' '; echo
  nstat -a 2>/dev/null | grep -E 'OutMcast|InMcast|InDiscards|OutDiscards|InNoRoutes|IpExtInNoRoutes|Ip6OutNoRoutes' | tr -s ' ' | tr '\n' ';'; echo; }
guest_side() { local v4; v4=$(gid_idx); post probe-start; wait_for capturing 60 || return 1
  cat /sys/class/infiniband/rxe0/ports/1/gids/0 /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/0
  mcg_try "default GID index (0) and MGID"
  mcg_try "IPv4 GID, default MGID" -x "$v4"
  mcg_try "IPv4 GID, MGID ::ffff:239.1.1.1" -x "$v4" -M 0:0:0:0:0:0:0:0:0:0:255:255:239:1:1:1
  mcg_try "link-local GID, MGID ff0e::1:2" -x 0 -M 255:14:0:0:0:0:0:0:0:0:0:0:0:1:0:2
  post probe-done; return 0; }
host_side() { wait_for probe-start 120 || return 1
  timeout 600 tcpdump -i tap2 -n -e -c 40 'udp port 4791 and (ip dst net 224.0.0.0/4 or ip6 dst net ff00::/8 or ip dst host 0.0.0.0)' & local p=$!
  post capturing; wait_for probe-done 600; sleep 1; kill $p 2>/dev/null; wait $p; return 0; }
