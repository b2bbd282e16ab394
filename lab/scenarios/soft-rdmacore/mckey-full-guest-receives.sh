# mckey (full join for the sender): the guest's tool receives on rxe0, rdma4j's soft device on the host sends
guest_side() { mckey_guest_receives_guest 239.77.1.1 -C 10; }
host_side() { mckey_guest_receives_host 239.77.1.1 -C 10 ; }
