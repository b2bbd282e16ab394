# udaddy: rdma4j's soft device on the host serves through its CM, the guest's tool on rxe0 connects
host_side() { udaddy_host_serves_host -C 10; }
guest_side() { udaddy_host_serves_guest -C 10; }
