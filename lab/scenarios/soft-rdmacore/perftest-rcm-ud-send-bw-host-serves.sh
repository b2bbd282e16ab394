# rdma4j perf ib_send_bw -R -c UD (UD SEND stream, 1 KiB) serves on the host's soft device; perftest's ib_send_bw -R -c UD in the guest
# on rxe0 meets it through rdma_cm: the exchange in SENDs on an rdma_cm RC QP, the test's UD QP resolved by SIDR (the
# reply names the server's QPN and Q_Key). Both print perftest's result table.
host_side() { pt_host_serves_host send_bw -R -c UD -s 1024 -n 1000; }
guest_side() { pt_host_serves_guest send_bw -R -c UD -s 1024 -n 1000; }
