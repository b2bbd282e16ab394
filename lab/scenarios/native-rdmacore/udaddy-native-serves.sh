# udaddy on rxe0 in one guest: rdma4j native serves, rdma-core's tool is the client
guest_side() { udaddy_pair native rdmacore -C 10; }
