# udaddy: the guest's tool serves on rxe0, rdma4j's soft device on the host connects through its CM
guest_side() { udaddy_guest_serves_guest -C 10; }
host_side() { udaddy_guest_serves_host -C 10; }
