# rc_pingpong: rdma4j's soft device on the host serves, the guest's tool on rxe0 is the client
host_side() { pp_host_serves_host rc -n 200 -s 4096 -c; }
guest_side() { pp_host_serves_guest rc -n 200 -s 4096 -c; }
