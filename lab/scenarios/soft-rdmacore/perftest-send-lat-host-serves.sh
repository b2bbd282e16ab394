# rdma4j perf ib_send_lat (RC SEND ping-pong, 64 B) serves on the host's soft device; perftest's ib_send_lat in the guest on rxe0 connects
# through perftest's TCP exchange. Both print perftest's result table.
host_side() { pt_host_serves_host send_lat -c RC -s 64 -n 1000; }
guest_side() { pt_host_serves_guest send_lat -c RC -s 64 -n 1000; }
