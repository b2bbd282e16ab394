package io.rdma4j.soft;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.transport.QpTransport;
import io.rdma4j.soft.transport.RecvQueue;
import io.rdma4j.soft.transport.SendQueue;
import io.rdma4j.soft.transport.SendWqe;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.PostException;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpAttrMask;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.SharedReceiveQueue;
import io.rdma4j.verbs.Sge;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A queue pair of the software device: its attributes and state machine, its queues, and the
 * transport that moves its packets. Posting validates and copies the work request into a
 * preallocated slot, then runs the requester inline under {@link #sendLock()}.
 */
public final class SoftQp implements QueuePair
{
    private final SoftEngine engine;
    private final SoftPd pd;
    private final QpType type;
    private final int qpNum;
    private final SoftCq sendCq;
    private final SoftCq recvCq;
    private final SoftSrq srq;
    private final QpCap cap;
    private final boolean sqSigAll;
    private final SendQueue sendQueue;
    private final RecvQueue recvQueue;
    private final Counters counters = new Counters();
    private final ReentrantLock sendLock = new ReentrantLock();
    private final Arena arena = Arena.ofShared();
    private final QpTransport transport;
    private final String label;

    private volatile QpState state = QpState.RESET;
    private volatile int qkey;
    private volatile Mtu pathMtu = Mtu.MTU_256;
    private volatile int destQpNum;
    private volatile int rqPsn;
    private volatile int sqPsn;
    private volatile int accessFlags;
    private volatile AhAttr ahAttr;
    private volatile InetAddress destination;
    private volatile int destinationIpv4;
    private volatile Gid destinationGid;
    private volatile int hopLimit = 64;
    private volatile int pkeyIndex;
    private volatile int timeout;
    private volatile int retryCnt;
    /** IBV_QP_CREATE_BLOCK_SELF_MCAST_LB: set once, before the QP is handed out. */
    private volatile boolean blockSelfMcastLoopback;
    private volatile int rnrRetry;
    private volatile int minRnrTimer;
    private volatile int maxRdAtomic;
    private volatile int maxDestRdAtomic;
    private volatile boolean closed;

    SoftQp(final SoftEngine engine, final SoftPd pd, final int qpNum, final QpType type, final SoftCq sendCq,
        final SoftCq recvCq, final SoftSrq srq, final QpCap cap, final boolean sqSigAll)
    {
        this.engine = engine;
        this.pd = pd;
        this.qpNum = qpNum;
        this.type = type;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.srq = srq;
        this.cap = cap;
        this.sqSigAll = sqSigAll;
        this.label = type + " QP 0x" + Integer.toHexString(qpNum);
        this.sendQueue = new SendQueue(Math.max(1, cap.maxSendWr()), Math.max(1, cap.maxSendSge()),
            cap.maxInlineData(), arena);
        this.recvQueue = srq == null ? new RecvQueue(Math.max(1, cap.maxRecvWr()), Math.max(1, cap.maxRecvSge())) : null;
        this.transport = engine.transportFactory().create(this);
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

    @Override
    public QpState state()
    {
        return state;
    }

    @Override
    public ProtectionDomain pd()
    {
        return pd;
    }

    /**
     * @return the PD, typed.
     */
    public SoftPd softPd()
    {
        return pd;
    }

    @Override
    public CompletionQueue sendCq()
    {
        return sendCq;
    }

    @Override
    public CompletionQueue recvCq()
    {
        return recvCq;
    }

    /**
     * @return the send CQ, typed.
     */
    public SoftCq softSendCq()
    {
        return sendCq;
    }

    /**
     * @return the receive CQ, typed.
     */
    public SoftCq softRecvCq()
    {
        return recvCq;
    }

    @Override
    public SharedReceiveQueue srq()
    {
        return srq;
    }

    /**
     * @return the SRQ, typed, or null.
     */
    public SoftSrq softSrq()
    {
        return srq;
    }

    @Override
    public QpCap cap()
    {
        return cap;
    }

    /**
     * @return the device engine.
     */
    public SoftEngine engine()
    {
        return engine;
    }

    /**
     * @return the send queue (guarded by {@link #sendLock()}).
     */
    public SendQueue sendQueue()
    {
        return sendQueue;
    }

    /**
     * @return where receives come from: the SRQ's pool or the QP's own queue.
     */
    public RecvQueue receiveSource()
    {
        return srq != null ? srq.queue() : recvQueue;
    }

    /**
     * @return the lock guarding the send queue and requester.
     */
    public ReentrantLock sendLock()
    {
        return sendLock;
    }

    public QpTransport transport()
    {
        return transport;
    }

    /**
     * @return the QP's own counters.
     */
    public Counters qpCounters()
    {
        return counters;
    }

    /**
     * Bump a counter of this QP and of the device.
     *
     * @param counter which one.
     */
    public void count(final SoftCounter counter)
    {
        counters.increment(counter);
        engine.counters().increment(counter);
    }

    /**
     * @return the Q_Key a UD QP (or QP1) checks incoming datagrams against; 0 until INIT sets it.
     */
    public int qkey()
    {
        return qkey;
    }

    /**
     * @return the path MTU set at RTR: the largest payload of one packet of a message.
     */
    public Mtu pathMtu()
    {
        return pathMtu;
    }

    /**
     * @return the remote QP number set at RTR (RC/UC), the destination QPN of every packet sent.
     */
    public int destQpNum()
    {
        return destQpNum;
    }

    /**
     * @return the PSN the responder expects first, set at RTR.
     */
    public int rqPsn()
    {
        return rqPsn;
    }

    /**
     * @return the PSN the requester starts from, set at RTS (for UD, the next one it uses).
     */
    public int sqPsn()
    {
        return sqPsn;
    }

    /**
     * @param psn the next PSN the requester will use (UD requester bookkeeping).
     */
    public void sqPsn(final int psn)
    {
        sqPsn = psn & 0xFFFFFF;
    }

    /**
     * @return the remote access rights the QP grants (IBV_ACCESS_REMOTE_* bits), checked by the responder before an rkey.
     */
    public int accessFlags()
    {
        return accessFlags;
    }

    /**
     * @return the primary path address vector set at RTR (RC/UC), or null.
     */
    public AhAttr ahAttr()
    {
        return ahAttr;
    }

    /**
     * @return the connected peer's IP address (RC/UC), or null.
     */
    public InetAddress destination()
    {
        return destination;
    }

    /**
     * @return {@link #destination()} as the big-endian int the headers carry (0 before RTR and for IPv6).
     */
    public int destinationIpv4()
    {
        return destinationIpv4;
    }

    /**
     * @return the connected peer's GID (RC/UC), whose halves are its IPv6 address on an IPv6 device; null before
     * an address vector is set.
     */
    public Gid destinationGid()
    {
        return destinationGid;
    }

    /**
     * @return the IP TTL (hop limit) of packets sent on the primary path.
     */
    public int hopLimit()
    {
        return hopLimit;
    }

    /**
     * @return the local ACK timeout exponent: 4.096 us times 2^timeout before a retransmission, 0 for never.
     */
    public int timeout()
    {
        return timeout;
    }

    /**
     * @return true if this QP's own multicast sends are not looped back to it.
     */
    public boolean blocksSelfMcastLoopback()
    {
        return blockSelfMcastLoopback;
    }

    void blockSelfMcastLoopback()
    {
        blockSelfMcastLoopback = true;
    }

    /**
     * @return transport retries (timeouts and sequence NAKs) before RETRY_EXC_ERR.
     */
    public int retryCnt()
    {
        return retryCnt;
    }

    /**
     * @return RNR NAK retries before RNR_RETRY_EXC_ERR; 7 retries for ever.
     */
    public int rnrRetry()
    {
        return rnrRetry;
    }

    /**
     * @return the RNR timer code this QP's responder puts in its RNR NAKs.
     */
    public int minRnrTimer()
    {
        return minRnrTimer;
    }

    /**
     * @return RDMA READs and atomics this QP's requester keeps outstanding.
     */
    public int maxRdAtomic()
    {
        return maxRdAtomic;
    }

    /**
     * @return RDMA READs and atomics this QP's responder holds resources for.
     */
    public int maxDestRdAtomic()
    {
        return maxDestRdAtomic;
    }

    /**
     * @return true if signaled sends are forced.
     */
    public boolean sqSigAll()
    {
        return sqSigAll;
    }

    /**
     * @return "RC QP 0x11", for messages.
     */
    public String label()
    {
        return label;
    }

    @Override
    public void modify(final QpAttr attr)
    {
        modify(attr, attr.mask());
    }

    @Override
    public void modify(final QpAttr attr, final Set<QpAttrMask> mask)
    {
        checkOpen();
        sendLock.lock();
        try
        {
            final QpState from = state;
            if (mask.contains(QpAttrMask.CUR_STATE) && attr.curState() != from)
            {
                throw new RdmaException(Errno.EINVAL, label + " is in " + from + ", not in cur_qp_state " +
                    attr.curState());
            }
            final QpState to = mask.contains(QpAttrMask.STATE) ? attr.state() : from;
            QpTransitions.check(type, from, to, mask);
            validateValues(attr, mask);
            apply(attr, mask);
            state = to;
            if (to == QpState.ERR && from != QpState.ERR)
            {
                flushLocked();
            }
            else if (to == QpState.RESET && from != QpState.RESET)
            {
                sendQueue.clear();
                if (recvQueue != null)
                {
                    recvQueue.clear();
                }
                transport.reset();
            }
            transport.attributesChanged();
        }
        finally
        {
            sendLock.unlock();
        }
    }

    private void validateValues(final QpAttr attr, final Set<QpAttrMask> mask)
    {
        final DeviceLimits limits = engine.limits();
        if (mask.contains(QpAttrMask.PORT) && attr.portNum() != 1)
        {
            throw new RdmaException(Errno.EINVAL, "port_num " + attr.portNum() + " does not exist: the device has port 1");
        }
        if (mask.contains(QpAttrMask.PKEY_INDEX) && attr.pkeyIndex() != 0)
        {
            throw new RdmaException(Errno.EINVAL, "pkey_index " + attr.pkeyIndex() +
                " is outside the P_Key table (length 1)");
        }
        if (mask.contains(QpAttrMask.PATH_MTU) && attr.pathMtu().bytes() > engine.activeMtu().bytes())
        {
            throw new RdmaException(Errno.EINVAL, "path_mtu " + attr.pathMtu().bytes() +
                " exceeds the port's active MTU " + engine.activeMtu().bytes());
        }
        if (mask.contains(QpAttrMask.TIMEOUT) && (attr.timeout() < 0 || attr.timeout() > 31))
        {
            throw new RdmaException(Errno.EINVAL, "timeout " + attr.timeout() + " is outside 0..31");
        }
        if (mask.contains(QpAttrMask.RETRY_CNT) && (attr.retryCnt() < 0 || attr.retryCnt() > 7))
        {
            throw new RdmaException(Errno.EINVAL, "retry_cnt " + attr.retryCnt() + " is outside 0..7");
        }
        if (mask.contains(QpAttrMask.RNR_RETRY) && (attr.rnrRetry() < 0 || attr.rnrRetry() > 7))
        {
            throw new RdmaException(Errno.EINVAL, "rnr_retry " + attr.rnrRetry() + " is outside 0..7");
        }
        if (mask.contains(QpAttrMask.MIN_RNR_TIMER) && (attr.minRnrTimer() < 0 || attr.minRnrTimer() > 31))
        {
            throw new RdmaException(Errno.EINVAL, "min_rnr_timer " + attr.minRnrTimer() + " is outside 0..31");
        }
        if (mask.contains(QpAttrMask.MAX_QP_RD_ATOMIC) &&
            (attr.maxRdAtomic() < 0 || attr.maxRdAtomic() > limits.maxQpInitRdAtom()))
        {
            throw new RdmaException(Errno.EINVAL, "max_rd_atomic " + attr.maxRdAtomic() +
                " exceeds max_qp_init_rd_atom " + limits.maxQpInitRdAtom());
        }
        if (mask.contains(QpAttrMask.MAX_DEST_RD_ATOMIC) &&
            (attr.maxDestRdAtomic() < 0 || attr.maxDestRdAtomic() > limits.maxQpRdAtom()))
        {
            throw new RdmaException(Errno.EINVAL, "max_dest_rd_atomic " + attr.maxDestRdAtomic() +
                " exceeds max_qp_rd_atom " + limits.maxQpRdAtom());
        }
        if (mask.contains(QpAttrMask.ACCESS_FLAGS) &&
            (attr.accessFlags() & ~(AccessFlag.REMOTE_WRITE.bit() | AccessFlag.REMOTE_READ.bit() |
            AccessFlag.REMOTE_ATOMIC.bit() | AccessFlag.LOCAL_WRITE.bit() | AccessFlag.MW_BIND.bit())) != 0)
        {
            throw new RdmaException(Errno.EINVAL, "unknown qp_access_flags bits 0x" +
                Integer.toHexString(attr.accessFlags()));
        }
        if (mask.contains(QpAttrMask.AV))
        {
            final AhAttr av = attr.ahAttr();
            if (av == null || !av.isGlobal() || av.grh().dgid().isZero())
            {
                throw new RdmaException(Errno.EINVAL,
                    "a RoCE address vector needs a GRH with the destination GID (the peer's IP address)");
            }
            SoftAh.checkFamily(av.grh().dgid(), engine.gid(), "address vector");
        }
        if (mask.contains(QpAttrMask.CAP))
        {
            throw new RdmaException(Errno.EINVAL, "the software device cannot resize a QP (IBV_QP_CAP)");
        }
    }

    private void apply(final QpAttr attr, final Set<QpAttrMask> mask)
    {
        if (mask.contains(QpAttrMask.QKEY))
        {
            qkey = attr.qkey();
        }
        if (mask.contains(QpAttrMask.PATH_MTU))
        {
            pathMtu = attr.pathMtu();
        }
        if (mask.contains(QpAttrMask.DEST_QPN))
        {
            destQpNum = attr.destQpNum() & 0xFFFFFF;
        }
        if (mask.contains(QpAttrMask.RQ_PSN))
        {
            rqPsn = attr.rqPsn() & 0xFFFFFF;
        }
        if (mask.contains(QpAttrMask.SQ_PSN))
        {
            sqPsn = attr.sqPsn() & 0xFFFFFF;
        }
        if (mask.contains(QpAttrMask.ACCESS_FLAGS))
        {
            accessFlags = attr.accessFlags();
        }
        if (mask.contains(QpAttrMask.AV))
        {
            ahAttr = attr.ahAttr();
            destination = attr.ahAttr().grh().dgid().toInet();
            final Gid dgid = attr.ahAttr().grh().dgid();
            destinationIpv4 = dgid.isIpv4Mapped() ? dgid.ipv4() : 0;
            destinationGid = dgid;
            final int hops = attr.ahAttr().grh().hopLimit();
            hopLimit = hops <= 0 ? 64 : Math.min(255, hops);
        }
        if (mask.contains(QpAttrMask.PKEY_INDEX))
        {
            pkeyIndex = attr.pkeyIndex();
        }
        if (mask.contains(QpAttrMask.TIMEOUT))
        {
            timeout = attr.timeout();
        }
        if (mask.contains(QpAttrMask.RETRY_CNT))
        {
            retryCnt = attr.retryCnt();
        }
        if (mask.contains(QpAttrMask.RNR_RETRY))
        {
            rnrRetry = attr.rnrRetry();
        }
        if (mask.contains(QpAttrMask.MIN_RNR_TIMER))
        {
            minRnrTimer = attr.minRnrTimer();
        }
        if (mask.contains(QpAttrMask.MAX_QP_RD_ATOMIC))
        {
            maxRdAtomic = attr.maxRdAtomic();
        }
        if (mask.contains(QpAttrMask.MAX_DEST_RD_ATOMIC))
        {
            maxDestRdAtomic = attr.maxDestRdAtomic();
        }
    }

    @Override
    public QpAttr query()
    {
        checkOpen();
        final QpAttr attr = new QpAttr()
            .state(state).curState(state).pathMtu(pathMtu).qkey(qkey).rqPsn(rqPsn).sqPsn(sqPsn)
            .destQpNum(destQpNum).accessFlags(accessFlags).pkeyIndex(pkeyIndex).portNum(1).timeout(timeout)
            .retryCnt(retryCnt).rnrRetry(rnrRetry).minRnrTimer(minRnrTimer).maxRdAtomic(maxRdAtomic)
            .maxDestRdAtomic(maxDestRdAtomic).cap(cap);
        if (ahAttr != null)
        {
            attr.ahAttr(ahAttr);
        }
        return attr.clearMask();
    }

    /**
     * Move to ERR because of a completion error, as rxe does, flushing both queues.
     */
    public void enterError()
    {
        sendLock.lock();
        try
        {
            if (state != QpState.ERR)
            {
                state = QpState.ERR;
                flushLocked();
            }
        }
        finally
        {
            sendLock.unlock();
        }
    }

    private void flushLocked()
    {
        transport.flush();
        if (recvQueue != null)
        {
            recvQueue.drain(wrId -> recvCq.flushRecv(wrId, qpNum));
        }
    }

    @Override
    public void postSend(final SendWr first)
    {
        checkOpen();
        sendLock.lock();
        try
        {
            final QpState current = state;
            int index = 0;
            for (SendWr wr = first; wr != null; wr = wr.next(), index++)
            {
                if (current != QpState.ERR && current.ordinal() < QpState.RTS.ordinal())
                {
                    throw new PostException(Errno.EINVAL, label + " is in " + current +
                        ": sends can be posted in RTS (or SQD, SQE, ERR)", index);
                }
                validateSend(wr, index);
                if (sendQueue.isFull())
                {
                    throw new PostException(Errno.ENOMEM, label + " send queue is full: max_send_wr is " +
                        sendQueue.capacity() + " and none has completed", index);
                }
                final SendWqe wqe = sendQueue.add(wr, sqSigAll);
                if (wqe.isInline)
                {
                    copyInline(wr, wqe);
                }
                if (current == QpState.ERR)
                {
                    // a QP in error completes new work at once, flushed
                    transport.flush();
                }
            }
            if (current != QpState.ERR)
            {
                transport.kick(engine.nanoTime());
            }
        }
        finally
        {
            sendLock.unlock();
            // the chain's packets leave together, outside the QP's lock
            engine.flushSends();
        }
    }

    private void validateSend(final SendWr wr, final int index)
    {
        final WrOpcode opcode = wr.opcode();
        if (opcode == null || !opcode.allowedOn(type))
        {
            throw new PostException(Errno.EINVAL, "opcode " + opcode + " cannot be posted on a " + type + " QP", index);
        }
        if (!SendFlags.valid(wr.sendFlags()))
        {
            throw new PostException(Errno.EINVAL, "unknown send_flags bits 0x" + Integer.toHexString(wr.sendFlags()),
                index);
        }
        final int numSge = wr.sgList().numSge();
        final long total = wr.sgList().totalLength();
        if ((wr.sendFlags() & SendFlags.INLINE) != 0)
        {
            if (total > cap.maxInlineData())
            {
                throw new PostException(Errno.EINVAL, "inline send of " + total + " bytes exceeds max_inline_data " +
                    cap.maxInlineData(), index);
            }
        }
        else if (numSge > cap.maxSendSge())
        {
            throw new PostException(Errno.EINVAL, "send has " + numSge + " SGEs, max_send_sge is " + cap.maxSendSge(),
                index);
        }
        if (total > engine.limits().maxMsgSize())
        {
            throw new PostException(Errno.EINVAL, "message of " + total + " bytes exceeds max_msg_sz " +
                engine.limits().maxMsgSize(), index);
        }
        if (type == QpType.UD)
        {
            if (!(wr.ah() instanceof SoftAh ah) || !ah.isValid())
            {
                throw new PostException(Errno.EINVAL, "a UD send needs a valid address handle of this device", index);
            }
            if (ah.pd() != pd)
            {
                throw new PostException(Errno.EINVAL, "the address handle belongs to another protection domain",
                    index);
            }
        }
        if ((opcode == WrOpcode.ATOMIC_CMP_AND_SWP || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD) &&
            (total != 8 || numSge != 1))
        {
            throw new PostException(Errno.EINVAL, "an atomic needs exactly one 8-byte SGE, got " + numSge +
                " SGEs of " + total + " bytes", index);
        }
    }

    private void copyInline(final SendWr wr, final SendWqe wqe)
    {
        long at = 0;
        for (int i = 0; i < wr.sgList().numSge(); i++)
        {
            final Sge sge = wr.sgList().get(i);
            if (sge.length() == 0)
            {
                continue;
            }
            // inline data is read by address, like the C library: the lkey is not checked
            final MemorySegment source = MemorySegment.ofAddress(sge.addr()).reinterpret(sge.length());
            MemorySegment.copy(source, 0, wqe.inline, at, sge.length());
            at += sge.length();
        }
    }

    @Override
    public void postRecv(final RecvWr first)
    {
        checkOpen();
        if (srq != null)
        {
            throw new PostException(Errno.EINVAL, label + " uses an SRQ: post receives to the SRQ", 0);
        }
        final QpState current = state;
        if (current == QpState.RESET)
        {
            throw new PostException(Errno.EINVAL, label + " is in RESET: receives can be posted from INIT on", 0);
        }
        recvQueue.post(first, label);
        if (state == QpState.ERR)
        {
            recvQueue.drain(wrId -> recvCq.flushRecv(wrId, qpNum));
        }
    }

    @Override
    public void attachMulticast(final Gid gid, final int lid)
    {
        checkOpen();
        if (type != QpType.UD)
        {
            throw new RdmaException(Errno.EINVAL, "only UD QPs can attach to multicast groups; " + label + " is " + type);
        }
        if (gid == null || !gid.isMulticast())
        {
            throw new RdmaException(Errno.EINVAL, "GID " + gid + " is not a multicast GID (first byte 0xFF, or " +
                "an IPv4-mapped 224.0.0.0/4 address)");
        }
        engine.mcast().attach(gid, this);
    }

    @Override
    public void detachMulticast(final Gid gid, final int lid)
    {
        checkOpen();
        if (type != QpType.UD)
        {
            throw new RdmaException(Errno.EINVAL, "only UD QPs attach to multicast groups; " + label + " is " + type);
        }
        if (gid == null)
        {
            throw new RdmaException(Errno.EINVAL, "the GID is null");
        }
        engine.mcast().detach(gid, this);
    }

    @Override
    public Map<String, Long> counters()
    {
        return counters.snapshot();
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new RdmaException(Errno.EINVAL, label + " is destroyed");
        }
    }

    /**
     * @return false once destroyed.
     */
    public boolean isOpen()
    {
        return !closed;
    }

    @Override
    public void close()
    {
        sendLock.lock();
        try
        {
            if (closed)
            {
                throw new RdmaException(Errno.EINVAL, label + " is already destroyed");
            }
            closed = true;
            state = QpState.RESET;
            transport.reset();
        }
        finally
        {
            sendLock.unlock();
        }
        engine.mcast().detachAll(this);
        engine.removeQp(this);
        sendCq.removeUser();
        if (recvCq != sendCq)
        {
            recvCq.removeUser();
        }
        if (srq != null)
        {
            srq.removeUser();
        }
        pd.release(this);
        arena.close();
    }

    @Override
    public String toString()
    {
        return label + " (" + state + ")";
    }
}
