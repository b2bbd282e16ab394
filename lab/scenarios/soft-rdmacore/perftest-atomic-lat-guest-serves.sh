# perftest's ib_atomic_lat (RC FETCH_AND_ADD) serves in the guest on rxe0; rdma4j perf ib_atomic_lat on the host's soft device connects
# through perftest's TCP exchange. Both print perftest's result table.
guest_side() { pt_guest_serves_guest atomic_lat -c RC -n 1000; }
host_side() { pt_guest_serves_host atomic_lat -c RC -n 1000; }
