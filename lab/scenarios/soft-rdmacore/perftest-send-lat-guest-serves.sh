# perftest's ib_send_lat (RC SEND ping-pong, 64 B) serves in the guest on rxe0; rdma4j perf ib_send_lat on the host's soft device connects
# through perftest's TCP exchange. Both print perftest's result table.
guest_side() { pt_guest_serves_guest send_lat -c RC -s 64 -n 1000; }
host_side() { pt_guest_serves_host send_lat -c RC -s 64 -n 1000; }
