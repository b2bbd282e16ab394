# cost of the binding with the emulator's drift cancelled: rdma-core's rc_pingpong and rdma4j's native one
# take turns in one guest, C, rdma4j, C, rdma4j, timing 1000 exchanges each (rdma4j after 5000 untimed, so
# its figure is the JIT-compiled loop's); each rdma4j figure is read against the C runs on either side of it
# (the same C tool measured 7.9 and 19.6 ms/iter 20 minutes apart, so runs far apart compare nothing)
TIMEOUT=600
guest_side() {
  pp_pair rdmacore rdmacore rc -n 1000 -s 4096 && pp_pair native native rc -n 1000 -s 4096 --warmup 5000 &&
  pp_pair rdmacore rdmacore rc -n 1000 -s 4096 && pp_pair native native rc -n 1000 -s 4096 --warmup 5000 &&
  pp_pair rdmacore rdmacore rc -n 1000 -s 4096
}
