# rdma4j perf ib_read_lat (RC RDMA READ, 64 B) serves on the host's soft device; perftest's ib_read_lat in the guest on rxe0 connects
# through perftest's TCP exchange. Both print perftest's result table.
host_side() { pt_host_serves_host read_lat -c RC -s 64 -n 1000; }
guest_side() { pt_host_serves_guest read_lat -c RC -s 64 -n 1000; }
