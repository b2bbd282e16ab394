# rc_pingpong -e (both sides sleep on CQ events) on rxe0 in one guest: rdma-core's tool serves, rdma4j native is
# the client
guest_side() { pp_pair rdmacore native rc -n 200 -s 4096 -c -e; }
