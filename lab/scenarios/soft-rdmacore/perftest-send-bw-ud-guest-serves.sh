# perftest's ib_send_bw (UD SEND stream, 1 KiB) serves in the guest on rxe0; rdma4j perf ib_send_bw on the host's soft device connects
# through perftest's TCP exchange. Both print perftest's result table.
guest_side() { pt_guest_serves_guest send_bw -c UD -s 1024 -n 1000; }
host_side() { pt_guest_serves_host send_bw -c UD -s 1024 -n 1000; }
