package io.rdma4j.soft.verbs;

import io.rdma4j.soft.resource.SoftAh;
import io.rdma4j.soft.resource.SoftMr;
import io.rdma4j.spi.Counted;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCreateFlag;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.SharedReceiveQueue;
import io.rdma4j.verbs.SrqAttr;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * A protection domain of the software device. It counts what was made in it, so that closing it
 * while anything remains is EBUSY, as {@code ibv_dealloc_pd} says.
 */
public final class SoftPd implements ProtectionDomain
{
    private final SoftContext context;
    private int mrs;
    private int qps;
    private int ahs;
    private int srqs;
    private boolean closed;

    SoftPd(final SoftContext context)
    {
        this.context = context;
    }

    @Override
    public Context context()
    {
        return context;
    }

    /**
     * @return the device engine.
     */
    public VerbsDevice engine()
    {
        return context.engine();
    }

    @Override
    public MemoryRegion regMr(final MemorySegment segment, final Set<AccessFlag> access)
    {
        checkOpen();
        if (segment == null || !segment.isNative())
        {
            throw new RdmaException(Errno.EINVAL,
                "memory regions need native memory (an Arena's segment): a heap segment has no fixed address; " +
                "allocate it from Arena.ofShared(), Arena.global() or Arena.ofAuto()");
        }
        if (!segment.scope().isAlive())
        {
            throw new RdmaException(Errno.EINVAL, "the segment's arena is already closed");
        }
        if (!segment.isAccessibleBy(engine().progressThread()))
        {
            // a confined arena's memory is readable by its owner thread only; the device moves
            // data on its own thread, so every receive into it would fail there, out of sight
            throw new RdmaException(Errno.EINVAL, "the segment belongs to a confined arena, which only its owner " +
                "thread may access, but the device reads and writes registered memory from its own threads: " +
                "allocate it from Arena.ofShared(), Arena.global() or Arena.ofAuto()");
        }
        if (segment.byteSize() == 0)
        {
            throw new RdmaException(Errno.EINVAL, "cannot register an empty memory segment");
        }
        if (segment.byteSize() > engine().limits().maxMsgSize() * 2L)
        {
            throw new RdmaException(Errno.EINVAL, "segment of " + segment.byteSize() + " bytes exceeds max_mr_size");
        }
        if ((access.contains(AccessFlag.REMOTE_WRITE) || access.contains(AccessFlag.REMOTE_ATOMIC)) &&
            !access.contains(AccessFlag.LOCAL_WRITE))
        {
            throw new RdmaException(Errno.EINVAL,
                "REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE too (ibv_reg_mr(3)); asked for " + access);
        }
        if (segment.isReadOnly() && access.contains(AccessFlag.LOCAL_WRITE))
        {
            throw new RdmaException(Errno.EACCES, "a read-only segment cannot be registered with LOCAL_WRITE");
        }
        if (engine().gathers())
        {
            // the link may send from this memory in place: its arena's close must flush first
            SendFence.on(segment, engine());
        }
        final SoftMr mr = engine().mrTable().add(key -> new SoftMr(this, segment, key, access, this::deregister));
        synchronized (this)
        {
            mrs++;
        }
        return mr;
    }

    @Override
    public QueuePair createQp(final QpInitAttr initAttr)
    {
        checkOpen();
        final boolean blockSelfLoopback = initAttr.has(QpCreateFlag.BLOCK_SELF_MCAST_LB);
        if (blockSelfLoopback && initAttr.type() != QpType.UD)
        {
            throw new RdmaException(Errno.EINVAL,
                "create flag BLOCK_SELF_MCAST_LB is for UD QPs (multicast); this QP is " + initAttr.type());
        }
        final SoftQp qp = QpCreation.create(engine(), this, initAttr);
        if (blockSelfLoopback)
        {
            qp.blockSelfLoopback();
        }
        synchronized (this)
        {
            qps++;
        }
        return qp;
    }

    @Override
    public AddressHandle createAh(final AhAttr attr)
    {
        checkOpen();
        final SoftAh ah = new SoftAh(this, engine().gid(), attr, this::release);
        synchronized (this)
        {
            ahs++;
        }
        return ah;
    }

    @Override
    public SharedReceiveQueue createSrq(final SrqAttr attr)
    {
        checkOpen();
        final DeviceLimits limits = engine().limits();
        if (attr.maxWr() < 1 || attr.maxWr() > limits.maxSrqWr())
        {
            throw new RdmaException(Errno.EINVAL, "SRQ max_wr " + attr.maxWr() + " is outside 1..max_srq_wr " +
                limits.maxSrqWr());
        }
        if (attr.maxSge() < 1 || attr.maxSge() > limits.maxSrqSge())
        {
            throw new RdmaException(Errno.EINVAL, "SRQ max_sge " + attr.maxSge() + " is outside 1..max_srq_sge " +
                limits.maxSrqSge());
        }
        if (attr.srqLimit() < 0 || attr.srqLimit() > attr.maxWr())
        {
            throw new RdmaException(Errno.EINVAL, "srq_limit " + attr.srqLimit() + " is outside 0..max_wr " +
                attr.maxWr());
        }
        final SoftSrq srq = new SoftSrq(this, attr);
        synchronized (this)
        {
            srqs++;
        }
        return srq;
    }

    private void deregister(final SoftMr mr)
    {
        engine().mrTable().remove(mr);
        release(mr);
    }

    synchronized void release(final Object child)
    {
        switch (child)
        {
            case SoftMr ignored -> mrs--;
            case SoftQp ignored -> qps--;
            case SoftAh ignored -> ahs--;
            case SoftSrq ignored -> srqs--;
            default -> throw new IllegalArgumentException(child.toString());
        }
    }

    private synchronized void checkOpen()
    {
        if (closed)
        {
            throw new RdmaException(Errno.EINVAL, "the protection domain is deallocated");
        }
    }

    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                throw new RdmaException(Errno.EINVAL, "the protection domain is already deallocated");
            }
            if (mrs + qps + ahs + srqs > 0)
            {
                throw new RdmaException(Errno.EBUSY, "the protection domain still has " + Counted.of(mrs, "memory region") +
                    ", " + Counted.of(qps, "QP") + ", " + Counted.of(ahs, "address handle") + " and " +
                    Counted.of(srqs, "SRQ"));
            }
            closed = true;
        }
        context.release(this);
    }
}
