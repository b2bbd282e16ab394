# rc_pingpong over IPv6: the guest's tool serves on rxe0's IPv6 GID, rdma4j's soft device on the host's IPv6
# address is the client; the guest's eth0 is captured (rc_pingpong_ipv6.pcap: SEND FIRST/MIDDLE/LAST, ACKs)
TIMEOUT=240
guest_side() { local rc; CAP_FILTER="udp port 4791 or icmp6" cap_start rc_pingpong_ipv6
  # in a subshell: the server helper waits for every job of its shell, tcpdump included
  ( pp6_guest_serves_guest rc -n 8 -s 2500 -m 1024 -c ); rc=$?; cap_stop; rxe_counters | grep -v " 0$"; return $rc; }
host_side() { pp6_guest_serves_host rc -n 8 -s 2500 -m 1024 -c; }
