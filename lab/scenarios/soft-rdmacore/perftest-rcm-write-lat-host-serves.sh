# rdma4j perf ib_write_lat -R (RC RDMA WRITE ping-pong, 64 B) serves on the host's soft device; perftest's ib_write_lat -R in the guest on rxe0
# connects through rdma_cm: the exchange in SENDs on an rdma_cm QP, the test's QP connected by the CM. Both print
# perftest's result table.
host_side() { pt_host_serves_host write_lat -R -c RC -s 64 -n 1000; }
guest_side() { pt_host_serves_guest write_lat -R -c RC -s 64 -n 1000; }
