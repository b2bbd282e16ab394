package io.rdma4j.rdmacore.cm;

import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.JoinFlags;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.UdParam;
import io.rdma4j.rdmacore.Ibverbs;
import io.rdma4j.rdmacore.NativeContext;
import io.rdma4j.rdmacore.NativeCq;
import io.rdma4j.rdmacore.NativePd;
import io.rdma4j.rdmacore.NativeQp;
import io.rdma4j.rdmacore.NativeSrq;
import io.rdma4j.rdmacore.Structs;
import io.rdma4j.rdmacore.abi.IbvQpAttr;
import io.rdma4j.rdmacore.abi.IbvQpCap;
import io.rdma4j.rdmacore.abi.IbvQpInitAttr;
import io.rdma4j.rdmacore.abi.RdmaCmId;
import io.rdma4j.rdmacore.abi.RdmaCmJoinMcAttrEx;
import io.rdma4j.rdmacore.abi.RdmaConnParam;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpAttrMask;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.RdmaException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static io.rdma4j.rdmacore.abi.CLayout.offset;

/**
 * librdmacm's {@code struct rdma_cm_id}. The device context librdmacm opened for the id's device is adopted once
 * per process ({@link #verbs()}), so that every id on a device hands out the same {@link NativeContext} and the
 * PDs and CQs made on it are accepted by {@code rdma_create_qp}. Failures carry librdmacm's errno.
 */
public final class NativeCmId implements CmId
{
    /** The contexts librdmacm opened, by {@code struct ibv_context *}: it keeps them open for the process. */
    private static final Map<Long, NativeContext> CONTEXTS = new ConcurrentHashMap<>();

    /** A multicast join: the group as given, how it was joined and the context its events return. */
    record Join(InetSocketAddress group, JoinFlags flags, Object context)
    {
    }

    /**
     * The MGID and MLID librdmacm attached the id's QP to a group with when the join completed
     * ({@code ucma_process_join}: a full member's join, with a QP at the time). Always the id's current QP's:
     * {@link #destroyQp()} forgets them all.
     */
    private record Attachment(Gid mgid, int mlid)
    {
    }

    private final NativeEventChannel channel;
    private final MemorySegment id;
    private final PortSpace portSpace;
    private final Map<InetSocketAddress, Long> joinKeys = new ConcurrentHashMap<>();
    private final Map<InetSocketAddress, Attachment> attachments = new ConcurrentHashMap<>();
    private volatile Object context;
    private volatile NativeQp qp;
    private NativePd defaultPd;
    private boolean destroyed;

    NativeCmId(final NativeEventChannel channel, final MemorySegment id, final Object context,
        final PortSpace portSpace)
    {
        this.channel = channel;
        this.id = id;
        this.context = context;
        this.portSpace = portSpace;
    }

    /**
     * @return the {@code struct rdma_cm_id *}.
     */
    public MemorySegment address()
    {
        return id;
    }

    @Override
    public NativeEventChannel channel()
    {
        return channel;
    }

    @Override
    public Object context()
    {
        return context;
    }

    @Override
    public void context(final Object context)
    {
        this.context = context;
    }

    @Override
    public PortSpace portSpace()
    {
        return portSpace;
    }

    @Override
    public NativeContext verbs()
    {
        final MemorySegment verbs = id.get(ValueLayout.ADDRESS, RdmaCmId.VERBS);
        if (verbs.equals(MemorySegment.NULL))
        {
            return null;
        }
        return CONTEXTS.computeIfAbsent(verbs.address(), address -> NativeContext.adopt(verbs));
    }

    @Override
    public NativeQp qp()
    {
        return qp;
    }

    @Override
    public InetSocketAddress localAddress()
    {
        return SockAddr.read(id.asSlice(RdmaCmId.SRC_ADDR, RdmaCmId.SOCKADDR_STORAGE_SIZE));
    }

    @Override
    public InetSocketAddress peerAddress()
    {
        return SockAddr.read(id.asSlice(RdmaCmId.DST_ADDR, RdmaCmId.SOCKADDR_STORAGE_SIZE));
    }

    @Override
    public void bindAddr(final InetSocketAddress address)
    {
        checkLive("bindAddr");
        try (Arena arena = Arena.ofConfined())
        {
            Rdmacm.check("rdma_bind_addr to " + address, "rdma_bind_addr", id, SockAddr.write(arena, address));
        }
    }

    @Override
    public void resolveAddr(final InetSocketAddress source, final InetSocketAddress destination, final int timeoutMs)
    {
        checkLive("resolveAddr");
        try (Arena arena = Arena.ofConfined())
        {
            Rdmacm.check("rdma_resolve_addr of " + destination + (source == null ? "" : " from " + source),
                "rdma_resolve_addr", id, source == null ? MemorySegment.NULL : SockAddr.write(arena, source),
                SockAddr.write(arena, destination), timeoutMs);
        }
    }

    /**
     * librdmacm's {@code rdma_init_qp_attr}: the attributes that take a QP of the caller's own (not the id's) to
     * {@code state} for this id's connection, with exactly the mask librdmacm returns, so that
     * {@link io.rdma4j.verbs.QueuePair#modify(QpAttr)} sets those and no others.
     */
    @Override
    public QpAttr initQpAttr(final QpState state)
    {
        checkLive("initQpAttr");
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(IbvQpAttr.LAYOUT);
            attr.set(ValueLayout.JAVA_INT, offset(IbvQpAttr.LAYOUT, "qp_state"), state.ordinal());
            final MemorySegment mask = arena.allocate(ValueLayout.JAVA_INT);
            Rdmacm.check("rdma_init_qp_attr for " + state, "rdma_init_qp_attr", id, attr, mask);
            return masked(Structs.readQpAttr(attr), mask.get(ValueLayout.JAVA_INT, 0));
        }
    }

    /** librdmacm's {@code rdma_establish}: the RTU of a connection whose QP is the caller's own, once it is in RTS. */
    @Override
    public void establish()
    {
        checkLive("establish");
        Rdmacm.check("rdma_establish", "rdma_establish", id);
    }

    /** The attributes of {@code all} that {@code bits} names, each set again so that it is in the mask. */
    private static QpAttr masked(final QpAttr all, final int bits)
    {
        final QpAttr out = new QpAttr();
        int left = bits;
        for (final QpAttrMask m : QpAttrMask.values())
        {
            if ((bits & m.bit()) == 0)
            {
                continue;
            }
            left &= ~m.bit();
            switch (m)
            {
                case STATE -> out.state(all.state());
                case CUR_STATE -> out.curState(all.curState());
                case ACCESS_FLAGS -> out.accessFlags(all.accessFlags());
                case PKEY_INDEX -> out.pkeyIndex(all.pkeyIndex());
                case PORT -> out.portNum(all.portNum());
                case QKEY -> out.qkey(all.qkey());
                case AV -> out.ahAttr(all.ahAttr());
                case PATH_MTU -> out.pathMtu(all.pathMtu());
                case TIMEOUT -> out.timeout(all.timeout());
                case RETRY_CNT -> out.retryCnt(all.retryCnt());
                case RNR_RETRY -> out.rnrRetry(all.rnrRetry());
                case RQ_PSN -> out.rqPsn(all.rqPsn());
                case MAX_QP_RD_ATOMIC -> out.maxRdAtomic(all.maxRdAtomic());
                case MIN_RNR_TIMER -> out.minRnrTimer(all.minRnrTimer());
                case SQ_PSN -> out.sqPsn(all.sqPsn());
                case MAX_DEST_RD_ATOMIC -> out.maxDestRdAtomic(all.maxDestRdAtomic());
                case CAP -> out.cap(all.cap());
                case DEST_QPN -> out.destQpNum(all.destQpNum());
                default -> throw new RdmaException(Errno.EOPNOTSUPP, "initQpAttr: librdmacm returned " + m +
                    ", which rdma4j's QpAttr does not carry");
            }
        }
        RdmaException.check(left == 0, Errno.EOPNOTSUPP, "initQpAttr: librdmacm returned mask bits 0x" +
            Integer.toHexString(left) + " that rdma4j does not know");
        return out;
    }

    @Override
    public void resolveRoute(final int timeoutMs)
    {
        checkLive("resolveRoute");
        Rdmacm.check("rdma_resolve_route", "rdma_resolve_route", id, timeoutMs);
    }

    @Override
    public void listen(final int backlog)
    {
        checkLive("listen");
        Rdmacm.check("rdma_listen with backlog " + backlog, "rdma_listen", id, backlog);
    }

    @Override
    public synchronized NativeQp createQp(final ProtectionDomain pd, final QpInitAttr initAttr)
    {
        checkLive("createQp");
        RdmaException.check(qp == null, Errno.EINVAL, "createQp: the id has a QP already (QPN " +
            (qp == null ? 0 : qp.qpNum()) + "): destroy it first");
        final NativeContext verbs = verbs();
        RdmaException.check(verbs != null, Errno.EINVAL,
            "createQp: the id is neither bound nor resolved to a device yet");
        final NativePd nativePd = pd == null ? defaultPd(verbs) : ours(pd, NativePd.class, "PD");
        final NativeCq sendCq = ours(initAttr.sendCq(), NativeCq.class, "send CQ");
        final NativeCq recvCq = ours(initAttr.recvCq(), NativeCq.class, "receive CQ");
        final NativeSrq srq = initAttr.srq() == null ? null : ours(initAttr.srq(), NativeSrq.class, "SRQ");
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment init = arena.allocate(IbvQpInitAttr.LAYOUT);
            init.set(ValueLayout.ADDRESS, offset(IbvQpInitAttr.LAYOUT, "send_cq"), sendCq.address());
            init.set(ValueLayout.ADDRESS, offset(IbvQpInitAttr.LAYOUT, "recv_cq"), recvCq.address());
            init.set(ValueLayout.ADDRESS, offset(IbvQpInitAttr.LAYOUT, "srq"),
                srq == null ? MemorySegment.NULL : srq.address());
            final MemorySegment cap = init.asSlice(offset(IbvQpInitAttr.LAYOUT, "cap"), IbvQpCap.LAYOUT.byteSize());
            Structs.writeCap(cap, initAttr.cap());
            init.set(ValueLayout.JAVA_INT, offset(IbvQpInitAttr.LAYOUT, "qp_type"), initAttr.type().value());
            init.set(ValueLayout.JAVA_INT, offset(IbvQpInitAttr.LAYOUT, "sq_sig_all"), initAttr.sqSigAll() ? 1 : 0);
            Rdmacm.check("rdma_create_qp " + initAttr.type() + " with " + initAttr.cap(), "rdma_create_qp", id,
                nativePd.address(), init);
            final MemorySegment created = id.get(ValueLayout.ADDRESS, RdmaCmId.QP);
            final QpInitAttr granted = new QpInitAttr(initAttr.type(), initAttr.sendCq(), initAttr.recvCq(),
                initAttr.srq(), Structs.readCap(cap), initAttr.sqSigAll());
            qp = NativeQp.wrap(nativePd, created, granted, destroyedQp ->
            {
                // what rdma_destroy_qp does for a QP on the caller's CQs, but with ibv_destroy_qp's errno, which
                // rdma_destroy_qp drops: a QP the kernel refused to destroy stays the id's and is said
                final int errno = Ibverbs.errno("ibv_destroy_qp", destroyedQp);
                if (errno == 0)
                {
                    id.set(ValueLayout.ADDRESS, RdmaCmId.QP, MemorySegment.NULL);
                }
                return errno;
            });
            return qp;
        }
    }

    private NativePd defaultPd(final NativeContext verbs)
    {
        if (defaultPd == null)
        {
            defaultPd = verbs.allocPd();
        }
        return defaultPd;
    }

    private static <T> T ours(final Object object, final Class<T> type, final String what)
    {
        if (!type.isInstance(object))
        {
            throw new RdmaException(Errno.EINVAL, "createQp: the " + what + " is not one of the native " +
                "provider's (" + (object == null ? "null" : object.getClass().getSimpleName()) +
                "): make it on this id's verbs()");
        }
        return type.cast(object);
    }

    /**
     * {@inheritDoc}
     * <p>
     * Destroying the QP detaches it from its groups first, as the soft device does; the joins themselves remain
     * until left. librdmacm does not: the kernel refuses to destroy a QP that is still attached (EBUSY), and
     * {@code rdma_destroy_qp} ignores that, which left the QP, and then its CQs and PD, impossible to destroy.
     */
    @Override
    public synchronized void destroyQp()
    {
        final NativeQp current = qp;
        if (current != null)
        {
            qp = null;
            RdmaException detachFailure = null;
            for (final Attachment attached : attachments.values())
            {
                try
                {
                    current.detachMulticast(attached.mgid(), attached.mlid());
                }
                catch (final RdmaException ex)
                {
                    detachFailure = detachFailure == null ? ex : detachFailure;
                }
            }
            attachments.clear();
            try
            {
                current.close();
            }
            catch (final RdmaException ex)
            {
                if (detachFailure != null)
                {
                    ex.addSuppressed(detachFailure);
                }
                throw ex;
            }
        }
    }

    /**
     * The join of {@code join.group()} completed: remember whether librdmacm attached the id's QP to the group,
     * so that {@link #destroyQp()} can detach it.
     */
    void joined(final Join join, final UdParam ud)
    {
        if (join.flags() == JoinFlags.SENDONLY_FULLMEMBER ||
            id.get(ValueLayout.ADDRESS, RdmaCmId.QP).equals(MemorySegment.NULL) || ud.ahAttr().grh() == null)
        {
            return;
        }
        attachments.put(join.group(), new Attachment(ud.ahAttr().grh().dgid(), ud.ahAttr().dlid()));
    }

    @Override
    public void connect(final ConnParam param)
    {
        checkLive("connect");
        try (Arena arena = Arena.ofConfined())
        {
            Rdmacm.check("rdma_connect", "rdma_connect", id, connParam(arena, param));
        }
    }

    @Override
    public void accept(final ConnParam param)
    {
        checkLive("accept");
        try (Arena arena = Arena.ofConfined())
        {
            Rdmacm.check("rdma_accept", "rdma_accept", id, connParam(arena, param));
        }
    }

    private static MemorySegment connParam(final Arena arena, final ConnParam param)
    {
        if (param == null)
        {
            return MemorySegment.NULL;
        }
        final MemorySegment conn = arena.allocate(RdmaConnParam.LAYOUT);
        final byte[] data = param.privateData();
        if (data != null && data.length > 0)
        {
            RdmaException.check(data.length <= 255, Errno.EINVAL, "private data of " + data.length +
                " bytes is over rdma_conn_param's 255");
            conn.set(ValueLayout.ADDRESS, RdmaConnParam.PRIVATE_DATA, arena.allocateFrom(ValueLayout.JAVA_BYTE, data));
            conn.set(ValueLayout.JAVA_BYTE, RdmaConnParam.PRIVATE_DATA_LEN, (byte)data.length);
        }
        conn.set(ValueLayout.JAVA_BYTE, RdmaConnParam.RESPONDER_RESOURCES, (byte)param.responderResources());
        conn.set(ValueLayout.JAVA_BYTE, RdmaConnParam.INITIATOR_DEPTH, (byte)param.initiatorDepth());
        conn.set(ValueLayout.JAVA_BYTE, RdmaConnParam.FLOW_CONTROL, (byte)param.flowControl());
        conn.set(ValueLayout.JAVA_BYTE, RdmaConnParam.RETRY_COUNT, (byte)param.retryCount());
        conn.set(ValueLayout.JAVA_BYTE, RdmaConnParam.RNR_RETRY_COUNT, (byte)param.rnrRetryCount());
        conn.set(ValueLayout.JAVA_BYTE, RdmaConnParam.SRQ, (byte)(param.srq() ? 1 : 0));
        conn.set(ValueLayout.JAVA_INT, RdmaConnParam.QP_NUM, param.qpNum());
        return conn;
    }

    @Override
    public void reject(final byte[] privateData)
    {
        checkLive("reject");
        final int length = privateData == null ? 0 : privateData.length;
        RdmaException.check(length <= 255, Errno.EINVAL, "reject: private data of " + length +
            " bytes is over the 255 rdma_reject takes");
        try (Arena arena = Arena.ofConfined())
        {
            Rdmacm.check("rdma_reject", "rdma_reject", id,
                length == 0 ? MemorySegment.NULL : arena.allocateFrom(ValueLayout.JAVA_BYTE, privateData),
                (byte)length);
        }
    }

    @Override
    public void disconnect()
    {
        checkLive("disconnect");
        Rdmacm.check("rdma_disconnect", "rdma_disconnect", id);
    }

    @Override
    public void joinMulticast(final InetSocketAddress group, final Object context)
    {
        joinMulticast(group, JoinFlags.FULLMEMBER, context);
    }

    @Override
    public void joinMulticast(final InetSocketAddress group, final JoinFlags flags, final Object context)
    {
        checkLive("joinMulticast");
        final long key = channel.addJoin(new Join(group, flags, context));
        if (joinKeys.putIfAbsent(group, key) != null)
        {
            channel.removeJoin(key);
            throw new RdmaException(Errno.EADDRINUSE, "joinMulticast: the id has joined " + group + " already");
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(RdmaCmJoinMcAttrEx.LAYOUT);
            attr.set(ValueLayout.JAVA_INT, RdmaCmJoinMcAttrEx.COMP_MASK,
                RdmaCmJoinMcAttrEx.ATTR_ADDRESS | RdmaCmJoinMcAttrEx.ATTR_JOIN_FLAGS);
            attr.set(ValueLayout.JAVA_INT, RdmaCmJoinMcAttrEx.JOIN_FLAGS, flags == JoinFlags.SENDONLY_FULLMEMBER ?
                RdmaCmJoinMcAttrEx.FLAG_SENDONLY_FULLMEMBER : RdmaCmJoinMcAttrEx.FLAG_FULLMEMBER);
            attr.set(ValueLayout.ADDRESS, RdmaCmJoinMcAttrEx.ADDR, SockAddr.write(arena, group));
            // the context pointer librdmacm returns in the join's events is the join's key, not a real pointer
            Rdmacm.check("rdma_join_multicast_ex " + group + " as " + flags, "rdma_join_multicast_ex", id, attr,
                MemorySegment.ofAddress(key));
        }
        catch (final RuntimeException ex)
        {
            joinKeys.remove(group);
            channel.removeJoin(key);
            throw ex;
        }
    }

    @Override
    public void leaveMulticast(final InetSocketAddress group)
    {
        checkLive("leaveMulticast");
        final Long key = joinKeys.get(group);
        RdmaException.check(key != null, Errno.EADDRNOTAVAIL, "leaveMulticast: the id has not joined " + group);
        try (Arena arena = Arena.ofConfined())
        {
            // returns once every event of the join is acknowledged
            Rdmacm.check("rdma_leave_multicast " + group, "rdma_leave_multicast", id, SockAddr.write(arena, group));
        }
        // librdmacm detached the id's QP from the group itself
        attachments.remove(group);
        joinKeys.remove(group);
        channel.removeJoin(key);
    }

    @Override
    public synchronized void close()
    {
        if (destroyed)
        {
            return;
        }
        destroyQp();
        // waits until every event of the id is acknowledged; the kernel leaves the id's groups
        Rdmacm.check("rdma_destroy_id", "rdma_destroy_id", id);
        destroyed = true;
        channel.forget(this);
        for (final Long key : joinKeys.values())
        {
            channel.removeJoin(key);
        }
        joinKeys.clear();
        if (defaultPd != null)
        {
            defaultPd.close();
            defaultPd = null;
        }
    }

    private void checkLive(final String operation)
    {
        RdmaException.check(!destroyed, Errno.EINVAL, operation + ": the id is destroyed");
    }

    @Override
    public String toString()
    {
        return "native cm id " + portSpace + " local " + localAddress() + " peer " + peerAddress();
    }
}
