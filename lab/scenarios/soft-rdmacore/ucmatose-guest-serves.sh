# ucmatose (rdma-core's name for cmatose): the guest's tool serves on rxe0, rdma4j's soft device on the host
# sets up four RC connections through its CM; ten messages each way on each
guest_side() { cmatose_guest_serves_guest -c 4 -C 10; }
host_side() { cmatose_guest_serves_host -c 4 -C 10; }
