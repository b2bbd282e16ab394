# memory lifetime on rxe0 (NativeMemoryLifetimeTest): closing an arena under a live region deregisters the region
# before the memory is freed, so rxe answers a remote WRITE or a receive into it with an error completion
TIMEOUT=300
guest_side() { junit --select-class=io.rdma4j.rdmacore.NativeMemoryLifetimeTest; }
