package io.rdma4j.rdmacore;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.RdmaException;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

/**
 * A memory region ({@code struct ibv_mr *}) over the caller's own segment. Its {@link MrGuard} deregisters it
 * when the segment's arena closes first, so the device never reaches freed memory; {@link #close} then only
 * releases it from its PD.
 */
public final class NativeMr implements MemoryRegion
{
    private final NativePd pd;
    private final MemorySegment mr;
    private final MrGuard guard;
    private final MemorySegment segment;
    private final Set<AccessFlag> access;
    private final int lkey;
    private final int rkey;
    private boolean closed;

    NativeMr(final NativePd pd, final MemorySegment mr, final MrGuard guard, final MemorySegment segment,
        final Set<AccessFlag> access, final int lkey, final int rkey)
    {
        this.pd = pd;
        this.mr = mr;
        this.guard = guard;
        this.segment = segment;
        this.access = access.isEmpty() ? EnumSet.noneOf(AccessFlag.class) : EnumSet.copyOf(access);
        this.lkey = lkey;
        this.rkey = rkey;
    }

    /**
     * @return the {@code struct ibv_mr *}.
     */
    public MemorySegment nativeAddress()
    {
        return mr;
    }

    @Override
    public NativePd pd()
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
        return segment.address();
    }

    @Override
    public long length()
    {
        return segment.byteSize();
    }

    @Override
    public int lkey()
    {
        return lkey;
    }

    @Override
    public int rkey()
    {
        return rkey;
    }

    @Override
    public Set<AccessFlag> access()
    {
        return EnumSet.copyOf(access.isEmpty() ? EnumSet.noneOf(AccessFlag.class) : access);
    }

    /**
     * {@inheritDoc}
     * <p>
     * After the memory's arena closed (which already deregistered it) this only releases it from its PD.
     */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            throw new RdmaException(Errno.EINVAL, "the memory region is already deregistered");
        }
        guard.deregister();
        closed = true;
        pd.release();
    }
}
