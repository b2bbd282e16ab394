# perftest's ib_read_lat -R (RC RDMA READ, 64 B) serves in the guest on rxe0; rdma4j perf ib_read_lat -R on the host's soft device
# connects through rdma_cm: the exchange in SENDs on an rdma_cm QP, the test's QP connected by the CM. Both print
# perftest's result table.
guest_side() { ptr_guest_serves_guest read_lat -R -c RC -s 64 -n 1000; }
host_side() { pt_guest_serves_host read_lat -R -c RC -s 64 -n 1000; }
