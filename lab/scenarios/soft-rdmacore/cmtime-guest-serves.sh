# cmtime: rdma-core's server on rxe0 in the guest, rdma4j's client on the host's soft device (--no-oob: rdma-core
# 44's form) takes 20 RC connections through each step together; the client's table is the result
guest_side() { cmtime_guest_serves_guest -c 20; }
host_side() { cmtime_guest_serves_host -c 20; }
