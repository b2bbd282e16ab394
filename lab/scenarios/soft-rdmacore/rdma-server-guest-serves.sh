# rdma_server: the guest's tool serves on rxe0, rdma4j's rdma_client on the host's soft device connects
guest_side() { rdma_server_guest_serves_guest; }
host_side() { rdma_server_guest_serves_host; }
