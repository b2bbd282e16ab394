# perftest's ib_write_bw -R (RC RDMA WRITE stream, 64 KiB) serves in the guest on rxe0; rdma4j perf ib_write_bw -R on the host's soft device
# connects through rdma_cm: the exchange in SENDs on an rdma_cm QP, the test's QP connected by the CM. Both print
# perftest's result table.
guest_side() { ptr_guest_serves_guest write_bw -R -c RC -s 65536 -n 1000; }
host_side() { pt_guest_serves_host write_bw -R -c RC -s 65536 -n 1000; }
