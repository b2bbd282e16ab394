# rdma4j perf ib_atomic_lat (RC FETCH_AND_ADD) serves on the host's soft device; perftest's ib_atomic_lat in the guest on rxe0 connects
# through perftest's TCP exchange. Both print perftest's result table.
host_side() { pt_host_serves_host atomic_lat -c RC -n 1000; }
guest_side() { pt_host_serves_guest atomic_lat -c RC -n 1000; }
