# perftest's ib_atomic_lat -R (RC FETCH_AND_ADD, 8 B) serves in the guest on rxe0; rdma4j perf ib_atomic_lat -R on the host's soft device
# connects through rdma_cm: the exchange in SENDs on an rdma_cm QP, the test's QP connected by the CM. Both print
# perftest's result table.
guest_side() { ptr_guest_serves_guest atomic_lat -R -c RC -n 1000; }
host_side() { pt_guest_serves_host atomic_lat -R -c RC -n 1000; }
