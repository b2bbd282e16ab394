# cost of the binding: rc_pingpong with rdma-core's C tool on both sides (the baseline)
TIMEOUT=240
guest_side() { pp_pair rdmacore rdmacore rc -n 500 -s 4096; }
