# perftest's ib_read_bw (RC RDMA READ stream, 64 KiB) serves in the guest on rxe0; rdma4j perf ib_read_bw on the host's soft device connects
# through perftest's TCP exchange. Both print perftest's result table.
guest_side() { pt_guest_serves_guest read_bw -c RC -s 65536 -n 1000; }
host_side() { pt_guest_serves_host read_bw -c RC -s 65536 -n 1000; }
