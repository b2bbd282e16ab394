# cost of the binding with the emulator's drift cancelled: rdma-core's rc_pingpong and rdma4j's native one take
# turns in one guest (C, rdma4j, C, ... four rdma4j runs, each between two C runs), timing 10000 exchanges each,
# rdma4j after 20000 untimed ones so that its figure is the JIT-compiled loop's; each rdma4j figure is read
# against the mean of the C runs either side of it (the same C tool measured 7.9 and 19.6 ms/iter twenty
# minutes apart on a loaded host, so runs far apart compare nothing). The JVMs run with the JVM's defaults.
TIMEOUT=1200
guest_side() { interleaved 20000 rc -n 10000 -s 4096; }
