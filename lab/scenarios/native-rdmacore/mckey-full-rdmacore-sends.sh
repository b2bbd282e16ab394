# mckey (full join for the sender) on rxe0 in one guest: rdma-core's tool sends, rdma4j native receives
guest_side() { mckey_pair native rdmacore 239.77.4.1 ; }
