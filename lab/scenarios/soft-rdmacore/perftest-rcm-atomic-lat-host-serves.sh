# rdma4j perf ib_atomic_lat -R (RC FETCH_AND_ADD, 8 B) serves on the host's soft device; perftest's ib_atomic_lat -R in the guest on rxe0
# connects through rdma_cm: the exchange in SENDs on an rdma_cm QP, the test's QP connected by the CM. Both print
# perftest's result table.
host_side() { pt_host_serves_host atomic_lat -R -c RC -n 1000; }
guest_side() { pt_host_serves_guest atomic_lat -R -c RC -n 1000; }
