# rdma4j perf ib_send_bw (RC SEND stream, 64 KiB) serves on the host's soft device; perftest's ib_send_bw in the guest on rxe0 connects
# through perftest's TCP exchange. Both print perftest's result table.
host_side() { pt_host_serves_host send_bw -c RC -s 65536 -n 1000; }
guest_side() { pt_host_serves_guest send_bw -c RC -s 65536 -n 1000; }
