# cost of the binding: ud_pingpong with rdma4j native on both sides (compare usec/iter with the baseline)
TIMEOUT=240
guest_side() { pp_pair native native ud -n 500 -s 1000; }
