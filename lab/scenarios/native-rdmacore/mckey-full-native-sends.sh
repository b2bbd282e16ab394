# mckey (full join for the sender) on rxe0 in one guest: rdma4j native sends, rdma-core's tool receives
guest_side() { mckey_pair rdmacore native 239.77.3.1 ; }
