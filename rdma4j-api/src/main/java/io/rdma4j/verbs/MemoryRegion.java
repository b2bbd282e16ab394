package io.rdma4j.verbs;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * Registered memory ({@code struct ibv_mr}). Work requests address it by virtual address
 * ({@link #address()} + offset) and key.
 */
public interface MemoryRegion extends AutoCloseable
{
    /**
     * @return the PD it was registered in.
     */
    ProtectionDomain pd();

    /**
     * @return the registered memory.
     */
    MemorySegment segment();

    /**
     * @return the virtual address of its first byte.
     */
    long address();

    /**
     * @return its length in bytes.
     */
    long length();

    /**
     * @return the local key, for SGEs.
     */
    int lkey();

    /**
     * @return the remote key, for peers' RDMA and atomic operations.
     */
    int rkey();

    /**
     * @return the access rights it was registered with.
     */
    Set<AccessFlag> access();

    /**
     * Deregister ({@code ibv_dereg_mr}). Its keys stop working at once; work requests still posted with
     * them complete in error and leave the memory untouched (allowed, as in libibverbs). The segment
     * stays the application's. Closing the segment's arena first deregisters the region as it closes,
     * before the memory is freed, on both engines; this method then only releases the region from its PD.
     *
     * @throws RdmaException EINVAL when called a second time.
     */
    @Override
    void close();
}
