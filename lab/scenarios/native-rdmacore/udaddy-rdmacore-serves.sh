# udaddy on rxe0 in one guest: rdma-core's tool serves, rdma4j native is the client
guest_side() { udaddy_pair rdmacore native -C 10; }
