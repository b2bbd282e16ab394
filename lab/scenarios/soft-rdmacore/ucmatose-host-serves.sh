# ucmatose (rdma-core's name for cmatose): rdma4j's soft device on the host serves through its CM, the guest's
# tool on rxe0 sets up four RC connections; ten messages each way on each
host_side() { cmatose_host_serves_host -c 4 -C 10; }
guest_side() { cmatose_host_serves_guest -c 4 -C 10; }
