# ud-5-interleaved with the guest's JVMs on C1 alone and the serial collector: no C2 compilation or GC thread
# competing with the two spinning processes and rxe for the guest's two vCPUs during the timed exchanges
TIMEOUT=1200
guest_side() { RDMA4J_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"; interleaved 20000 ud -n 10000 -s 1000; }
