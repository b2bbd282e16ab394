package io.rdma4j.soft.resource;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;

import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Registered memory of the software device. lkey and rkey are the same value, as in rxe: an
 * index into the device's {@link MrTable} and a random key byte, so a stale key never finds the
 * region that reused its slot.
 */
public final class SoftMr implements MemoryRegion
{
    private final ProtectionDomain pd;
    /** The PD's bookkeeping when the region is deregistered: out of the key table, one region fewer. */
    private final Consumer<SoftMr> onClose;
    private final MemorySegment segment;
    /** The segment's address and size, read once: its accessors check the segment on each call. */
    private final long start;
    private final long size;
    private final int key;
    private final int accessBits;
    private final Set<AccessFlag> access;
    private volatile boolean valid = true;

    /**
     * @param pd      the PD it belongs to.
     * @param segment the registered memory.
     * @param key     its lkey and rkey, from the {@link MrTable}.
     * @param access  the access it grants.
     * @param onClose what deregistering it tells the PD.
     */
    public SoftMr(
        final ProtectionDomain pd, final MemorySegment segment, final int key, final Set<AccessFlag> access,
        final Consumer<SoftMr> onClose)
    {
        this.pd = pd;
        this.onClose = onClose;
        this.segment = segment;
        this.start = segment.address();
        this.size = segment.byteSize();
        this.key = key;
        this.access = Collections.unmodifiableSet(EnumSet.copyOf(access.isEmpty() ?
            EnumSet.noneOf(AccessFlag.class) : access));
        this.accessBits = AccessFlag.toMask(access);
    }

    @Override
    public ProtectionDomain pd()
    {
        return pd;
    }

    @Override
    public MemorySegment segment()
    {
        return segment;
    }

    @Override
    public long address()
    {
        return start;
    }

    @Override
    public long length()
    {
        return size;
    }

    @Override
    public int lkey()
    {
        return key;
    }

    @Override
    public int rkey()
    {
        return key;
    }

    @Override
    public Set<AccessFlag> access()
    {
        return access;
    }

    /**
     * @return the access flags as bits.
     */
    public int accessBits()
    {
        return accessBits;
    }

    /**
     * @return false once deregistered, or once the arena of its memory closed: the memory is gone,
     *         and an access would throw on the device's thread instead of completing with an error.
     */
    public boolean isValid()
    {
        return valid && segment.scope().isAlive();
    }

    /**
     * @param address start of a range.
     * @param length  its length.
     * @return true if the range lies inside this region.
     */
    public boolean covers(final long address, final long length)
    {
        return length >= 0 && address >= start && address - start <= size - length;
    }

    @Override
    public void close()
    {
        if (!valid)
        {
            throw new io.rdma4j.verbs.RdmaException(io.rdma4j.verbs.Errno.EINVAL,
                "memory region with lkey 0x" + Integer.toHexString(key) + " is already deregistered");
        }
        valid = false;
        onClose.accept(this);
    }

    @Override
    public String toString()
    {
        return "SoftMr{key=0x" + Integer.toHexString(key) + ", addr=0x" + Long.toHexString(address()) + ", length=" +
            length() + ", access=" + access + '}';
    }
}
