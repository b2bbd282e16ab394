package io.rdma4j.rdmacore;

import io.rdma4j.rdmacore.abi.IbvSrqAttr;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.PostException;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SharedReceiveQueue;
import io.rdma4j.verbs.SrqAttr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A shared receive queue ({@code struct ibv_srq *}); posting goes through the context's {@code post_srq_recv}
 * with a native work request array the SRQ owns.
 */
public final class NativeSrq implements SharedReceiveQueue
{
    /** {@code IBV_SRQ_LIMIT}, the attribute mask bit of {@code srq_limit}. */
    private static final int IBV_SRQ_LIMIT = 1 << 1;

    private final NativePd pd;
    private final MemorySegment srq;
    private final Arena arena = Arena.ofShared();
    private final RecvWrArray wrs;
    private final MemorySegment postSrqRecv;
    private volatile boolean closed;

    NativeSrq(final NativePd pd, final MemorySegment srq, final int maxWr, final int maxSge)
    {
        this.pd = pd;
        this.srq = srq;
        this.wrs = new RecvWrArray(arena, maxWr, maxSge);
        this.postSrqRecv = pd.context().ops().postSrqRecv;
    }

    /**
     * @return the {@code struct ibv_srq *}.
     */
    public MemorySegment address()
    {
        return srq;
    }

    @Override
    public NativePd pd()
    {
        return pd;
    }

    @Override
    public void postRecv(final RecvWr wr)
    {
        synchronized (wrs)
        {
            // under the lock: close() takes it too, so a post never reaches a destroyed SRQ
            checkOpen();
            wrs.write(wr, "SRQ");
            final int rc;
            try
            {
                rc = (int)OpsTable.POST.invokeExact(postSrqRecv, srq, wrs.first(), wrs.badWr());
            }
            catch (final Throwable ex)
            {
                throw new IllegalStateException("post_srq_recv threw", ex);
            }
            if (rc != 0)
            {
                throw new PostException(Errno.fromCode(Math.abs(rc), Errno.EIO), "post_srq_recv failed (errno " +
                    Math.abs(rc) + ')', wrs.badIndex());
            }
        }
    }

    @Override
    public void modifyLimit(final int srqLimit)
    {
        checkOpen();
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment attr = local.allocate(IbvSrqAttr.LAYOUT);
            attr.set(ValueLayout.JAVA_INT, 8, srqLimit);
            Ibverbs.check("ibv_modify_srq srq_limit " + srqLimit, "ibv_modify_srq", srq, attr, IBV_SRQ_LIMIT);
        }
    }

    @Override
    public SrqAttr query()
    {
        checkOpen();
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment attr = local.allocate(IbvSrqAttr.LAYOUT);
            Ibverbs.check("ibv_query_srq", "ibv_query_srq", srq, attr);
            return new SrqAttr(attr.get(ValueLayout.JAVA_INT, 0), attr.get(ValueLayout.JAVA_INT, 4),
                attr.get(ValueLayout.JAVA_INT, 8));
        }
    }

    @Override
    public void close()
    {
        synchronized (wrs)
        {
            if (closed)
            {
                throw new RdmaException(Errno.EINVAL, "the SRQ is already destroyed");
            }
            Ibverbs.check("ibv_destroy_srq", "ibv_destroy_srq", srq);
            closed = true;
        }
        pd.context().unregister(srq);
        arena.close();
        pd.release();
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new RdmaException(Errno.EINVAL, "the SRQ is destroyed");
        }
    }
}
