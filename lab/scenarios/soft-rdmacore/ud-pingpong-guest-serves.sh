# ud_pingpong: the guest's tool serves on rxe0, rdma4j's soft device on the host is the client
guest_side() { pp_guest_serves_guest ud -n 200 -s 1000 -c; }
host_side() { pp_guest_serves_host ud -n 200 -s 1000 -c; }
