package io.rdma4j.rdmacore;

import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.lang.foreign.MemorySegment;

/**
 * An address handle ({@code struct ibv_ah *}), for UD sends.
 */
public final class NativeAh implements AddressHandle
{
    private final NativePd pd;
    private final MemorySegment ah;
    private final AhAttr attr;
    private boolean closed;

    NativeAh(final NativePd pd, final MemorySegment ah, final AhAttr attr)
    {
        this.pd = pd;
        this.ah = ah;
        this.attr = attr;
    }

    /**
     * @return the {@code struct ibv_ah *}.
     */
    public MemorySegment address()
    {
        return ah;
    }

    @Override
    public NativePd pd()
    {
        return pd;
    }

    @Override
    public AhAttr attr()
    {
        return attr;
    }

    @Override
    public synchronized void close()
    {
        if (closed)
        {
            throw new RdmaException(Errno.EINVAL, "the address handle is already destroyed");
        }
        Ibverbs.check("ibv_destroy_ah", "ibv_destroy_ah", ah);
        closed = true;
        pd.release();
    }
}
