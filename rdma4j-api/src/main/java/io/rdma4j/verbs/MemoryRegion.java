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
     * Deregister ({@code ibv_dereg_mr}). Its keys stop working at once. The segment stays the
     * application's: it may be freed (its arena closed) only after this, never before, because the
     * device reads and writes it in place until the region is closed.
     */
    @Override
    void close();
}
