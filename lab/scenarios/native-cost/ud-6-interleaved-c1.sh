# ud-5-interleaved with the guest's JVMs on C1 alone and the serial collector: no C2 compilation or GC thread
# competing with the two spinning processes and rxe for the guest's two vCPUs during the timed exchanges
TIMEOUT=1200
guest_side() {
  RDMA4J_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
  pp_pair rdmacore rdmacore ud -n 10000 -s 1000 || return 1
  local i; for i in 1 2 3 4; do
    pp_pair native native ud -n 10000 -s 1000 --warmup 20000 && pp_pair rdmacore rdmacore ud -n 10000 -s 1000 || return 1
  done
}
