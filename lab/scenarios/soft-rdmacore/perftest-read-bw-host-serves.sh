# rdma4j perf ib_read_bw (RC RDMA READ stream, 64 KiB) serves on the host's soft device; perftest's ib_read_bw in the guest on rxe0 connects
# through perftest's TCP exchange. Both print perftest's result table.
host_side() { pt_host_serves_host read_bw -c RC -s 65536 -n 1000; }
guest_side() { pt_host_serves_guest read_bw -c RC -s 65536 -n 1000; }
