# rdma_server: rdma4j's rdma_server serves on the host's soft device, the guest's rdma_client on rxe0 connects
host_side() { rdma_server_host_serves_host; }
guest_side() { rdma_server_host_serves_guest; }
