# srq_pingpong on rxe0 in one guest: rdma-core's tool serves, rdma4j native is the client
guest_side() { pp_pair rdmacore native srq -n 200 -s 4096 -q 4 -c; }
