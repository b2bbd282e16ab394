package io.rdma4j.rdmacore;

import io.rdma4j.rdmacore.abi.IbvGid;
import io.rdma4j.rdmacore.abi.IbvQp;
import io.rdma4j.rdmacore.abi.IbvQpAttr;
import io.rdma4j.rdmacore.abi.IbvQpInitAttr;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.PostException;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpAttrMask;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendWr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;

import static io.rdma4j.rdmacore.abi.CLayout.offset;

/**
 * A queue pair ({@code struct ibv_qp *}). Posting writes the caller's work requests into c arrays this
 * QP owns (sized for a chain as long as its queue) and calls the provider's {@code post_send} or
 * {@code post_recv} from the context's ops table: nothing is allocated per post.
 */
public final class NativeQp implements QueuePair
{
    private static final QpState[] STATES = QpState.values();
    /** Every attribute ibv_query_qp can report. */
    private static final int QUERY_ALL_MASK = (1 << 21) - 1;

    private final NativePd pd;
    private final MemorySegment qp;
    private final QpType type;
    private final NativeCq sendCq;
    private final NativeCq recvCq;
    private final NativeSrq srq;
    private final QpCap cap;
    private final int qpNum;
    private final String label;
    private final ToIntFunction<MemorySegment> destroyer;
    private final Arena arena = Arena.ofShared();
    private final SendWrArray sendWrs;
    private final RecvWrArray recvWrs;
    private final MemorySegment postSend;
    private final MemorySegment postRecv;
    private final Object sendLock = new Object();
    private final Object recvLock = new Object();
    private volatile boolean closed;

    private NativeQp(final NativePd pd, final MemorySegment qp, final QpInitAttr initAttr, final QpCap cap,
        final ToIntFunction<MemorySegment> destroyer)
    {
        this.pd = pd;
        this.qp = qp.reinterpret(IbvQp.LAYOUT.byteSize());
        this.type = initAttr.type();
        this.sendCq = (NativeCq)initAttr.sendCq();
        this.recvCq = (NativeCq)initAttr.recvCq();
        this.srq = (NativeSrq)initAttr.srq();
        this.cap = cap;
        this.qpNum = this.qp.get(ValueLayout.JAVA_INT, IbvQp.QP_NUM);
        this.label = type + " QP " + qpNum;
        this.destroyer = destroyer;
        this.sendWrs = new SendWrArray(arena, cap.maxSendWr(), cap.maxSendSge(), type == QpType.UD);
        this.recvWrs = srq == null ? new RecvWrArray(arena, cap.maxRecvWr(), cap.maxRecvSge()) : null;
        this.postSend = pd.context().ops().postSend;
        this.postRecv = pd.context().ops().postRecv;
    }

    static NativeQp create(final NativePd pd, final QpInitAttr initAttr)
    {
        final NativeContext context = pd.context();
        RdmaException.check(initAttr.sendCq() != null && initAttr.recvCq() != null, Errno.EINVAL,
            "a QP needs a send CQ and a receive CQ");
        final NativeCq sendCq = context.owned(initAttr.sendCq(), NativeCq.class, "send CQ");
        final NativeCq recvCq = context.owned(initAttr.recvCq(), NativeCq.class, "receive CQ");
        final NativeSrq srq = initAttr.srq() == null ? null : context.owned(initAttr.srq(), NativeSrq.class, "SRQ");
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment init = arena.allocate(IbvQpInitAttr.LAYOUT);
            init.set(ValueLayout.ADDRESS, offset(IbvQpInitAttr.LAYOUT, "send_cq"), sendCq.address());
            init.set(ValueLayout.ADDRESS, offset(IbvQpInitAttr.LAYOUT, "recv_cq"), recvCq.address());
            init.set(ValueLayout.ADDRESS, offset(IbvQpInitAttr.LAYOUT, "srq"),
                srq == null ? MemorySegment.NULL : srq.address());
            final MemorySegment capSegment = init.asSlice(offset(IbvQpInitAttr.LAYOUT, "cap"),
                io.rdma4j.rdmacore.abi.IbvQpCap.LAYOUT.byteSize());
            Structs.writeCap(capSegment, initAttr.cap());
            init.set(ValueLayout.JAVA_INT, offset(IbvQpInitAttr.LAYOUT, "qp_type"), initAttr.type().value());
            init.set(ValueLayout.JAVA_INT, offset(IbvQpInitAttr.LAYOUT, "sq_sig_all"), initAttr.sqSigAll() ? 1 : 0);
            final MemorySegment qp = Ibverbs.pointer("ibv_create_qp " + initAttr.type() + " with " + initAttr.cap(),
                "ibv_create_qp", pd.address(), init);
            // the provider wrote back what it granted, at least what was asked
            final NativeQp created = new NativeQp(pd, qp, initAttr, Structs.readCap(capSegment),
                q -> Ibverbs.errno("ibv_destroy_qp", q));
            pd.retain();
            context.register(qp, created);
            return created;
        }
    }

    /**
     * Wrap a QP that c code created, such as librdmacm's {@code rdma_create_qp}, so that it is posted to and
     * polled through this API. Its CQs (and SRQ) must be this provider's objects on the same context, as they
     * were when the QP was created.
     *
     * @param pd the PD it was created on.
     * @param qp the {@code struct ibv_qp *}.
     * @param initAttr what it was created with (type, CQs, SRQ, sq_sig_all), with {@code cap} as granted.
     * @param destroyer how to destroy it, e.g. calling {@code rdma_destroy_qp} for the id; returns 0 or an errno.
     * @return the wrapper, registered for async events.
     */
    public static NativeQp wrap(final NativePd pd, final MemorySegment qp, final QpInitAttr initAttr,
        final ToIntFunction<MemorySegment> destroyer)
    {
        final NativeQp wrapped = new NativeQp(pd, qp, initAttr, initAttr.cap(), destroyer);
        pd.retain();
        pd.context().register(qp, wrapped);
        return wrapped;
    }

    /**
     * @return the {@code struct ibv_qp *}.
     */
    public MemorySegment address()
    {
        return qp;
    }

    @Override
    public int qpNum()
    {
        return qpNum;
    }

    @Override
    public QpType type()
    {
        return type;
    }

    /**
     * {@inheritDoc}
     * <p>
     * The state libibverbs last recorded in {@code qp->state} on a modify; a transition the device makes by
     * itself (to ERR on a completion error) shows in {@link #query()}.
     */
    @Override
    public QpState state()
    {
        final int state = qp.get(ValueLayout.JAVA_INT, IbvQp.STATE);
        return state >= 0 && state < STATES.length ? STATES[state] : QpState.ERR;
    }

    @Override
    public NativePd pd()
    {
        return pd;
    }

    @Override
    public NativeCq sendCq()
    {
        return sendCq;
    }

    @Override
    public NativeCq recvCq()
    {
        return recvCq;
    }

    @Override
    public NativeSrq srq()
    {
        return srq;
    }

    @Override
    public QpCap cap()
    {
        return cap;
    }

    @Override
    public void modify(final QpAttr attr)
    {
        modify(attr, attr.mask());
    }

    @Override
    public void modify(final QpAttr attr, final Set<QpAttrMask> mask)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment qpAttr = arena.allocate(IbvQpAttr.LAYOUT);
            Structs.writeQpAttr(qpAttr, attr);
            final int bits = QpAttrMask.toMask(mask);
            // the control calls take the send lock, as close() does, so that none reaches a destroyed QP
            synchronized (sendLock)
            {
                checkOpen();
                Ibverbs.check("ibv_modify_qp of " + label + " in " + state() +
                    (mask.contains(QpAttrMask.STATE) ? " to " + attr.state() : "") + " with " + mask, "ibv_modify_qp",
                    qp, qpAttr, bits);
            }
        }
    }

    @Override
    public QpAttr query()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(IbvQpAttr.LAYOUT);
            final MemorySegment init = arena.allocate(IbvQpInitAttr.LAYOUT);
            synchronized (sendLock)
            {
                checkOpen();
                Ibverbs.check("ibv_query_qp of " + label, "ibv_query_qp", qp, attr, QUERY_ALL_MASK, init);
            }
            return Structs.readQpAttr(attr);
        }
    }

    @Override
    public void postSend(final SendWr wr)
    {
        synchronized (sendLock)
        {
            // under the lock: close() takes it too, so a post never reaches a destroyed QP
            checkOpen();
            sendWrs.write(wr, label);
            final int rc;
            try
            {
                rc = (int)OpsTable.POST.invokeExact(postSend, qp, sendWrs.first(), sendWrs.badWr());
            }
            catch (final Throwable ex)
            {
                throw new IllegalStateException("post_send threw", ex);
            }
            if (rc != 0)
            {
                throw postFailure("post_send", rc, sendWrs.badIndex());
            }
        }
    }

    @Override
    public void postRecv(final RecvWr wr)
    {
        if (recvWrs == null)
        {
            throw new PostException(Errno.EINVAL, label + " uses an SRQ: post receives to the SRQ", 0);
        }
        synchronized (recvLock)
        {
            checkOpen();
            recvWrs.write(wr, label);
            final int rc;
            try
            {
                rc = (int)OpsTable.POST.invokeExact(postRecv, qp, recvWrs.first(), recvWrs.badWr());
            }
            catch (final Throwable ex)
            {
                throw new IllegalStateException("post_recv threw", ex);
            }
            if (rc != 0)
            {
                throw postFailure("post_recv", rc, recvWrs.badIndex());
            }
        }
    }

    private PostException postFailure(final String operation, final int rc, final int badIndex)
    {
        final int code = Math.abs(rc);
        return new PostException(Errno.fromCode(code, Errno.EIO), operation + " on " + label + " in " + state() +
            " failed (errno " + code + ')', badIndex);
    }

    @Override
    public void attachMulticast(final Gid gid, final int lid)
    {
        multicast("ibv_attach_mcast", gid, lid);
    }

    @Override
    public void detachMulticast(final Gid gid, final int lid)
    {
        multicast("ibv_detach_mcast", gid, lid);
    }

    private void multicast(final String function, final Gid gid, final int lid)
    {
        RdmaException.check(type == QpType.UD, Errno.EINVAL, function + ": only UD QPs join multicast groups, " +
            label + " is " + type);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment raw = arena.allocate(IbvGid.LAYOUT);
            MemorySegment.copy(MemorySegment.ofArray(gid.toBytes()), 0, raw, 0, IbvGid.SIZE);
            synchronized (sendLock)
            {
                checkOpen();
                Ibverbs.check(function + " of " + label + " to " + gid, function, qp, raw, (short)lid);
            }
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * libibverbs keeps no per-QP counters: the device's are in {@link NativeContext#counters()}.
     */
    @Override
    public Map<String, Long> counters()
    {
        return Map.of();
    }

    @Override
    public void close()
    {
        synchronized (sendLock)
        {
            synchronized (recvLock)
            {
                if (closed)
                {
                    throw new RdmaException(Errno.EINVAL, label + " is already destroyed");
                }
                final int errno = destroyer.applyAsInt(qp);
                if (errno != 0)
                {
                    throw NativeErrors.exception(errno, "destroying " + label);
                }
                closed = true;
            }
        }
        pd.context().unregister(qp);
        arena.close();
        pd.release();
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new RdmaException(Errno.EINVAL, label + " is destroyed");
        }
    }

    @Override
    public String toString()
    {
        return "NativeQp{" + label + '}';
    }
}
