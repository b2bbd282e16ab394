# rc_pingpong over IPv6: rdma4j's soft device on the host's IPv6 address serves, the guest's tool on rxe0's
# IPv6 GID is the client
host_side() { pp6_host_serves_host rc -n 200 -s 4096 -c; }
guest_side() { pp6_host_serves_guest rc -n 200 -s 4096 -c; }
