# rping: rdma4j's soft device on the host serves through its CM, the guest's tool on rxe0 connects
host_side() { rping_host_serves_host -C 10 -S 100; }
guest_side() { rping_host_serves_guest -C 10 -S 100; }
