# the native connection manager (librdmacm) on rxe0: NativeCmTest
TIMEOUT=300
guest_side() { junit --select-class=io.rdma4j.rdmacore.NativeCmTest; }
