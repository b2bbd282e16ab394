# srq_pingpong: the guest's tool serves on rxe0, rdma4j's soft device on the host is the client
guest_side() { pp_guest_serves_guest srq -n 200 -s 4096 -q 4 -c; }
host_side() { pp_guest_serves_host srq -n 200 -s 4096 -q 4 -c; }
