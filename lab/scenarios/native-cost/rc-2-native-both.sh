# cost of the binding: rc_pingpong with rdma4j native on both sides (compare usec/iter with the baseline)
TIMEOUT=240
guest_side() { pp_pair native native rc -n 500 -s 4096; }
