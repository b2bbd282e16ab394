# rdma4j perf ib_send_bw -R -c UD (UD SEND stream, 1 KiB) serves in the guest through the native provider on rxe0;
# rdma4j perf ib_send_bw -R -c UD on the host's soft device meets it through rdma_cm (SIDR for the test's UD QP).
# -r 1000: the receiver posts a receive for every message before the stream starts. With perftest's 512 the host
# sends faster than a JVM in the emulated guest reposts, and UD drops what finds no receive (run of 2026-11-26
# 23:09: rxe0 took in all 1024 packets, 526 found a receive).
guest_side() { ptr_guest_serves_guest send_bw -R -c UD -s 1024 -n 1000 -r 1000; }
host_side() { pt_guest_serves_host send_bw -R -c UD -s 1024 -n 1000 -r 1000; }
