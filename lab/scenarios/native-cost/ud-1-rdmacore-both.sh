# cost of the binding: ud_pingpong with rdma-core's C tool on both sides (the baseline)
TIMEOUT=240
guest_side() { pp_pair rdmacore rdmacore ud -n 500 -s 1000; }
