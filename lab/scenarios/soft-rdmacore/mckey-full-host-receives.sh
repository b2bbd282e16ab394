# mckey (full join for the sender): rdma4j's soft device on the host receives, the guest's tool on rxe0 sends
host_side() { mckey_host_receives_host 239.77.1.2 -C 10; }
guest_side() { mckey_host_receives_guest 239.77.1.2 -C 10 ; }
