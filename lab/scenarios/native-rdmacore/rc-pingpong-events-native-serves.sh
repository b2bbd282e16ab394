# rc_pingpong -e (both sides sleep on CQ events) on rxe0 in one guest: rdma4j native serves, rdma-core's tool is
# the client
guest_side() { pp_pair native rdmacore rc -n 200 -s 4096 -c -e; }
