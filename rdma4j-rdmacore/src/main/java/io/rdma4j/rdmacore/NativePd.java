package io.rdma4j.rdmacore;

import io.rdma4j.rdmacore.abi.IbvAhAttr;
import io.rdma4j.rdmacore.abi.IbvMr;
import io.rdma4j.rdmacore.abi.IbvSrqInitAttr;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.SrqAttr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Set;

import static io.rdma4j.rdmacore.abi.CLayout.offset;

/**
 * A protection domain ({@code struct ibv_pd *}).
 */
public final class NativePd implements io.rdma4j.verbs.ProtectionDomain
{
    /** A thread no arena is confined to: memory it cannot access is a confined arena's. */
    private static final Thread NO_OWNER = Thread.ofVirtual().unstarted(() -> { });

    private final NativeContext context;
    private final MemorySegment pd;
    private int children;
    private volatile boolean closed;

    NativePd(final NativeContext context, final MemorySegment pd)
    {
        this.context = context;
        this.pd = pd;
    }

    /**
     * Wrap a PD that librdmacm or other c code allocated on a context of this provider; closing the
     * wrapper deallocates it.
     *
     * @param context the context it was allocated on.
     * @param pd a {@code struct ibv_pd *}.
     * @return the wrapper.
     */
    public static NativePd wrap(final NativeContext context, final MemorySegment pd)
    {
        context.retain();
        return new NativePd(context, pd);
    }

    /**
     * @return the {@code struct ibv_pd *}.
     */
    public MemorySegment address()
    {
        return pd;
    }

    @Override
    public NativeContext context()
    {
        return context;
    }

    /**
     * {@inheritDoc}
     * <p>
     * The segment itself is registered (zero copy): the device reads and writes the caller's memory. The region
     * lives no longer than that memory: closing the segment's arena first deregisters the region (before the
     * arena frees the memory), and memory of an automatic arena stays allocated while the region can reach it.
     * Memory of a confined arena is refused, because a confined arena frees its first allocation before it runs
     * any later close action.
     */
    @Override
    public NativeMr regMr(final MemorySegment segment, final Set<AccessFlag> access)
    {
        checkOpen();
        if (segment == null || !segment.isNative())
        {
            throw new RdmaException(Errno.EINVAL,
                "memory regions need c memory (an Arena's segment): a heap segment has no fixed address; " +
                "allocate it from Arena.ofShared(), Arena.global() or Arena.ofAuto()");
        }
        if (!segment.scope().isAlive())
        {
            throw new RdmaException(Errno.EINVAL, "the segment's arena is already closed");
        }
        if (!segment.isAccessibleBy(NO_OWNER))
        {
            throw new RdmaException(Errno.EINVAL, "the segment belongs to a confined arena, which frees its first " +
                "allocation before any close action registered later, so the region could not be deregistered " +
                "before its memory is freed: allocate it from Arena.ofShared(), Arena.global() or Arena.ofAuto()");
        }
        if (segment.byteSize() == 0)
        {
            throw new RdmaException(Errno.EINVAL, "cannot register an empty memory segment");
        }
        if (segment.isReadOnly() && access.contains(AccessFlag.LOCAL_WRITE))
        {
            throw new RdmaException(Errno.EACCES, "a read-only segment cannot be registered with LOCAL_WRITE");
        }
        final String what = segment.byteSize() + " bytes at 0x" + Long.toHexString(segment.address());
        final MrGuard guard = MrGuard.on(segment, registered -> Ibverbs.check("ibv_dereg_mr of the " + what,
            "ibv_dereg_mr", registered));
        final MemorySegment mr = guard.register(() -> Ibverbs.pointer("ibv_reg_mr of " + what + " with " +
            access, "ibv_reg_mr", pd, segment, segment.byteSize(), AccessFlag.toMask(access)))
            .reinterpret(IbvMr.LAYOUT.byteSize());
        retain();
        return new NativeMr(this, mr, guard, segment, access, mr.get(ValueLayout.JAVA_INT, IbvMr.LKEY),
            mr.get(ValueLayout.JAVA_INT, IbvMr.RKEY));
    }

    @Override
    public NativeQp createQp(final QpInitAttr initAttr)
    {
        checkOpen();
        return NativeQp.create(this, initAttr);
    }

    @Override
    public NativeAh createAh(final AhAttr attr)
    {
        checkOpen();
        RdmaException.check(attr != null, Errno.EINVAL, "an address handle needs its attributes");
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment ahAttr = arena.allocate(IbvAhAttr.LAYOUT);
            Structs.writeAhAttr(ahAttr, attr);
            final MemorySegment ah = Ibverbs.pointer("ibv_create_ah to " + (attr.isGlobal() ? attr.grh().dgid() :
                "LID " + attr.dlid()), "ibv_create_ah", pd, ahAttr);
            retain();
            return new NativeAh(this, ah, attr);
        }
    }

    @Override
    public NativeSrq createSrq(final SrqAttr attr)
    {
        checkOpen();
        RdmaException.check(attr != null && attr.maxWr() >= 1 && attr.maxSge() >= 1, Errno.EINVAL,
            "an SRQ needs max_wr and max_sge of at least 1, not " + attr);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment init = arena.allocate(IbvSrqInitAttr.LAYOUT);
            final long base = offset(IbvSrqInitAttr.LAYOUT, "attr");
            init.set(ValueLayout.JAVA_INT, base, attr.maxWr());
            init.set(ValueLayout.JAVA_INT, base + 4, attr.maxSge());
            init.set(ValueLayout.JAVA_INT, base + 8, attr.srqLimit());
            final MemorySegment srq = Ibverbs.pointer("ibv_create_srq of " + attr.maxWr() + " WRs x " + attr.maxSge() +
                " SGEs", "ibv_create_srq", pd, init);
            retain();
            // the provider writes back the sizes it granted
            final NativeSrq created = new NativeSrq(this, srq, init.get(ValueLayout.JAVA_INT, base),
                init.get(ValueLayout.JAVA_INT, base + 4));
            context.register(srq, created);
            return created;
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
            if (children > 0)
            {
                throw new RdmaException(Errno.EBUSY, "the protection domain still has " + children +
                    " memory regions, QPs, address handles or SRQs");
            }
            Ibverbs.check("ibv_dealloc_pd", "ibv_dealloc_pd", pd);
            closed = true;
        }
        context.release();
    }

    synchronized void retain()
    {
        children++;
    }

    synchronized void release()
    {
        children--;
    }

    void checkOpen()
    {
        if (closed)
        {
            throw new RdmaException(Errno.EINVAL, "the protection domain is deallocated");
        }
        context.checkOpen();
    }
}
