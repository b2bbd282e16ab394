# rdma4j perf ib_write_bw -R (RC RDMA WRITE stream, 64 KiB) serves on the host's soft device; perftest's ib_write_bw -R in the guest on rxe0
# connects through rdma_cm: the exchange in SENDs on an rdma_cm QP, the test's QP connected by the CM. Both print
# perftest's result table.
host_side() { pt_host_serves_host write_bw -R -c RC -s 65536 -n 1000; }
guest_side() { pt_host_serves_guest write_bw -R -c RC -s 65536 -n 1000; }
