# rping: the guest's tool serves on rxe0, rdma4j's soft device on the host connects through its CM
guest_side() { rping_guest_serves_guest -C 10 -S 100; }
host_side() { rping_guest_serves_host -C 10 -S 100; }
