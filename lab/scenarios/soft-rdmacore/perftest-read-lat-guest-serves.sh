# perftest's ib_read_lat (RC RDMA READ, 64 B) serves in the guest on rxe0; rdma4j perf ib_read_lat on the host's soft device connects
# through perftest's TCP exchange. Both print perftest's result table.
guest_side() { pt_guest_serves_guest read_lat -c RC -s 64 -n 1000; }
host_side() { pt_guest_serves_host read_lat -c RC -s 64 -n 1000; }
