# cost of the binding: ud_pingpong with rdma-core's C tool on both sides, timing as many exchanges as
# ud-3-native-warm makes in all (the C figure once the emulator has translated the loop: C's own warm-up)
TIMEOUT=480
guest_side() { pp_pair rdmacore rdmacore ud -n 20500 -s 1000; }
