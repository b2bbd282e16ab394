# the native provider's verbs on rxe0: every device test of rdma4j-rdmacore but the CM's (cm.sh), memory lifetime (memory.sh) and those
# that need a machine without rdma-core (LayoutTest runs on the host, NoLibraryTest forces a missing library)
TIMEOUT=600
guest_side() { junit --select-package=io.rdma4j.rdmacore --exclude-classname='.*(LayoutTest|NoLibraryTest|NativeCmTest|NativeMemoryLifetimeTest)'; }
