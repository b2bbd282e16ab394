# reliable multicast across engines (issue 42, item 8): rdma4j's rmcast publisher on rxe0 through the native
# provider, the subscriber on the host's soft device; every one of 5000 64-byte messages delivered, none lost
TIMEOUT=240
guest_side() { rmcast_pub_side "$GUEST_IP" 239.77.4.2 5000; }
host_side() { rmcast_sub_side "$HOST_IP" 239.77.4.2 5000; }
