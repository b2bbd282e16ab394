# cmtime: rdma4j's server on the host's soft device (--no-oob: rdma-core 44's form) accepts the 20 RC connections
# rdma-core's client on rxe0 in the guest times step by step; both print a table
guest_side() { cmtime_host_serves_guest -c 20; }
host_side() { cmtime_host_serves_host -c 20; }
