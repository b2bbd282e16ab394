# cost of the binding: rc_pingpong with rdma-core's C tool on both sides, timing as many exchanges as
# rc-3-native-warm makes in all (the C figure once the emulator has translated the loop: C's own warm-up)
TIMEOUT=480
guest_side() { pp_pair rdmacore rdmacore rc -n 5500 -s 4096; }
