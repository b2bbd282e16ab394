# perftest's ib_send_lat -R -c UD (UD SEND ping-pong, 512 B) serves in the guest on rxe0; rdma4j perf ib_send_lat -R -c UD on the host's soft
# device meets it through rdma_cm: the exchange in SENDs on an rdma_cm RC QP, the test's UD QP resolved by SIDR (the
# reply names the server's QPN and Q_Key; the client SENDs its QPN in the immediate data). Both print perftest's result table.
guest_side() { ptr_guest_serves_guest send_lat -R -c UD -s 512 -n 1000; }
host_side() { pt_guest_serves_host send_lat -R -c UD -s 512 -n 1000; }
