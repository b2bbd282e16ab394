# rdma4j perf ib_send_bw -R (RC SEND stream, 64 KiB) serves on the host's soft device; perftest's ib_send_bw -R in the guest on rxe0
# connects through rdma_cm: the exchange in SENDs on an rdma_cm QP, the test's QP connected by the CM. Both print
# perftest's result table.
host_side() { pt_host_serves_host send_bw -R -c RC -s 65536 -n 1000; }
guest_side() { pt_host_serves_guest send_bw -R -c RC -s 65536 -n 1000; }
