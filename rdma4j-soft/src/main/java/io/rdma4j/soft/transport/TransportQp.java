package io.rdma4j.soft.transport;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpAttrMask;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A queue pair as its transport sees it: the attributes the verbs set (state, PSNs, path, retry counts), its
 * queues, where its completions go, its counters, and the device behind it ({@link TransportDevice}). rxe's
 * {@code rxe_qp} holds the same. The verbs object above ({@code SoftQp}) adds what the application calls:
 * validation of modify and post, multicast attach, destroy; every attribute it accepts lands here through
 * {@link #applyAttributes}.
 * <p>
 * Attributes are volatile: the verbs write them under {@link #sendLock()}, the receiving thread reads them
 * without it.
 */
public abstract class TransportQp implements QueuePair
{
    private final TransportDevice device;
    private final ProtectionDomain pd;
    private final QpType type;
    private final int qpNum;
    private final CompletionSink sendCompletions;
    private final CompletionSink recvCompletions;
    private final SharedRecvPool srqPool;
    private final QpCap cap;
    private final boolean sqSigAll;
    private final SendQueue sendQueue;
    private final RecvQueue recvQueue;
    private final Counters counters = Counters.compact();
    private final ReentrantLock sendLock = new ReentrantLock();
    /** Holds the send queue's inline buffers: closed by the verbs object when the QP is destroyed. */
    protected final Arena arena = Arena.ofShared();
    private final String label;
    private final QpTransport transport;

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
    /**
     * The peer is a device of this user on this host, reached through its owner-only inbox: datagrams that claim
     * to come from it by UDP are another local process's (hardening issue, item 2).
     */
    private volatile boolean peerOnSameHostPath;
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

    /**
     * @param device          the device.
     * @param pd              the PD the QP belongs to.
     * @param qpNum           its number.
     * @param type            RC, UC or UD.
     * @param sendCompletions the send CQ.
     * @param recvCompletions the receive CQ.
     * @param srqPool         the SRQ it takes receives from, or null for a receive queue of its own.
     * @param cap             the granted capabilities.
     * @param sqSigAll        true if every send is signaled.
     * @param factory         makes the QP's transport, last, once everything above is set.
     */
    protected TransportQp(
        final TransportDevice device, final ProtectionDomain pd, final int qpNum, final QpType type,
        final CompletionSink sendCompletions, final CompletionSink recvCompletions, final SharedRecvPool srqPool,
        final QpCap cap, final boolean sqSigAll, final TransportFactory factory)
    {
        this.device = device;
        this.pd = pd;
        this.qpNum = qpNum;
        this.type = type;
        this.sendCompletions = sendCompletions;
        this.recvCompletions = recvCompletions;
        this.srqPool = srqPool;
        this.cap = cap;
        this.sqSigAll = sqSigAll;
        this.label = type + " QP 0x" + Integer.toHexString(qpNum);
        this.sendQueue = new SendQueue(Math.max(1, cap.maxSendWr()), Math.max(1, cap.maxSendSge()),
            cap.maxInlineData(), arena);
        this.recvQueue = srqPool == null ?
            new RecvQueue(Math.max(1, cap.maxRecvWr()), Math.max(1, cap.maxRecvSge())) : null;
        this.transport = factory.create(this);
    }

    @Override
    public final int qpNum()
    {
        return qpNum;
    }

    @Override
    public final QpType type()
    {
        return type;
    }

    @Override
    public final QpState state()
    {
        return state;
    }

    /**
     * @param to the state the verbs moved the QP to (under the send lock).
     */
    protected final void state(final QpState to)
    {
        state = to;
    }

    @Override
    public final ProtectionDomain pd()
    {
        return pd;
    }

    @Override
    public final QpCap cap()
    {
        return cap;
    }

    /**
     * @return the device.
     */
    public final TransportDevice device()
    {
        return device;
    }

    /**
     * @return where send completions go.
     */
    public final CompletionSink sendCompletions()
    {
        return sendCompletions;
    }

    /**
     * @return where receive completions go.
     */
    public final CompletionSink recvCompletions()
    {
        return recvCompletions;
    }

    /**
     * @return the SRQ this QP takes receives from, or null.
     */
    public final SharedRecvPool srqPool()
    {
        return srqPool;
    }

    /**
     * @return the send queue (guarded by {@link #sendLock()}).
     */
    public final SendQueue sendQueue()
    {
        return sendQueue;
    }

    /**
     * @return the QP's own receive queue, or null with an SRQ.
     */
    protected final RecvQueue ownRecvQueue()
    {
        return recvQueue;
    }

    /**
     * @return where receives come from: the SRQ's pool or the QP's own queue.
     */
    public final RecvQueue receiveSource()
    {
        return srqPool != null ? srqPool.queue() : recvQueue;
    }

    /**
     * @return the lock guarding the send queue, the requester and attribute changes.
     */
    public final ReentrantLock sendLock()
    {
        return sendLock;
    }

    /**
     * @return the transport.
     */
    public final QpTransport transport()
    {
        return transport;
    }

    /**
     * @return the QP's own counters.
     */
    public final Counters qpCounters()
    {
        return counters;
    }

    /**
     * Bump a counter of this QP and of the device.
     *
     * @param counter which one.
     */
    public final void count(final SoftCounter counter)
    {
        counters.increment(counter);
        device.counters().increment(counter);
    }

    /**
     * @return the Q_Key a UD QP (or QP1) checks incoming datagrams against; 0 until INIT sets it.
     */
    public final int qkey()
    {
        return qkey;
    }

    /**
     * @return the path MTU set at RTR: the largest payload of one packet of a message.
     */
    public final Mtu pathMtu()
    {
        return pathMtu;
    }

    /**
     * @return the remote QP number set at RTR (RC/UC), the destination QPN of every packet sent.
     */
    public final int destQpNum()
    {
        return destQpNum;
    }

    /**
     * @return the PSN the responder expects first, set at RTR.
     */
    public final int rqPsn()
    {
        return rqPsn;
    }

    /**
     * @return the PSN the requester starts from, set at RTS (for UD, the next one it uses).
     */
    public final int sqPsn()
    {
        return sqPsn;
    }

    /**
     * @param psn the next PSN the requester will use (UD requester bookkeeping).
     */
    public final void sqPsn(final int psn)
    {
        sqPsn = psn & 0xFFFFFF;
    }

    /**
     * @return the remote access rights the QP grants (IBV_ACCESS_REMOTE_* bits), checked by the responder
     *         before an rkey.
     */
    public final int accessFlags()
    {
        return accessFlags;
    }

    /**
     * @return the connected peer's IP address (RC/UC), or null.
     */
    public final InetAddress destination()
    {
        return destination;
    }

    /**
     * @return true if the peer (a connected QP's, set at RTR) is a device of this user on this host that the
     *         link reaches through its owner-only inbox: the receive path then takes the peer's datagrams
     *         from the inbox only.
     */
    public final boolean peerOnSameHostPath()
    {
        return peerOnSameHostPath;
    }

    /**
     * @return {@link #destination()} as the big-endian int the headers carry (0 before RTR and for IPv6).
     */
    public final int destinationIpv4()
    {
        return destinationIpv4;
    }

    /**
     * @return the connected peer's GID (RC/UC), whose halves are its IPv6 address on an IPv6 device; null
     *         before an address vector is set.
     */
    public final Gid destinationGid()
    {
        return destinationGid;
    }

    /**
     * @return the IP TTL (hop limit) of packets sent on the primary path.
     */
    public final int hopLimit()
    {
        return hopLimit;
    }

    /**
     * @return the local ACK timeout exponent: 4.096 us times 2^timeout before a retransmission, 0 for never.
     */
    public final int timeout()
    {
        return timeout;
    }

    /**
     * @return true if this QP's own multicast sends are not looped back to it.
     */
    public final boolean blocksSelfMcastLoopback()
    {
        return blockSelfMcastLoopback;
    }

    /**
     * Keep this QP's own multicast sends from looping back to it (set at creation).
     */
    protected final void blockSelfMcastLoopback()
    {
        blockSelfMcastLoopback = true;
    }

    /**
     * @return transport retries (timeouts and sequence NAKs) before RETRY_EXC_ERR.
     */
    public final int retryCnt()
    {
        return retryCnt;
    }

    /**
     * @return RNR NAK retries before RNR_RETRY_EXC_ERR; 7 retries for ever.
     */
    public final int rnrRetry()
    {
        return rnrRetry;
    }

    /**
     * @return the RNR timer code this QP's responder puts in its RNR NAKs.
     */
    public final int minRnrTimer()
    {
        return minRnrTimer;
    }

    /**
     * @return RDMA READs and atomics this QP's requester keeps outstanding.
     */
    public final int maxRdAtomic()
    {
        return maxRdAtomic;
    }

    /**
     * @return RDMA READs and atomics this QP's responder holds resources for.
     */
    public final int maxDestRdAtomic()
    {
        return maxDestRdAtomic;
    }

    /**
     * @return true if signaled sends are forced.
     */
    public final boolean sqSigAll()
    {
        return sqSigAll;
    }

    /**
     * @return "RC QP 0x11", for messages.
     */
    public final String label()
    {
        return label;
    }

    /**
     * @return false once destroyed.
     */
    public final boolean isOpen()
    {
        return !closed;
    }

    /**
     * The QP is destroyed: nothing reaches its transport any more.
     */
    protected final void markClosed()
    {
        closed = true;
    }

    /**
     * Take the attributes the mask names; the verbs checked them, under the send lock.
     *
     * @param attr the attributes.
     * @param mask which of them.
     */
    protected final void applyAttributes(final QpAttr attr, final Set<QpAttrMask> mask)
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
            final Gid dgid = attr.ahAttr().grh().dgid();
            ahAttr = attr.ahAttr();
            destination = dgid.toInet();
            destinationIpv4 = dgid.isIpv4Mapped() ? dgid.ipv4() : 0;
            destinationGid = dgid;
            // only a connected QP has one peer to hear; asked once here, when the address is set (RTR)
            peerOnSameHostPath = type != QpType.UD && device.sameHostPathTo(dgid);
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

    /**
     * @return the attributes as ibv_query_qp reports them.
     */
    protected final QpAttr currentAttributes()
    {
        final QpState now = state;
        final QpAttr attr = new QpAttr()
            .state(now).curState(now).pathMtu(pathMtu).qkey(qkey).rqPsn(rqPsn).sqPsn(sqPsn)
            .destQpNum(destQpNum).accessFlags(accessFlags).pkeyIndex(pkeyIndex).portNum(1).timeout(timeout)
            .retryCnt(retryCnt).rnrRetry(rnrRetry).minRnrTimer(minRnrTimer).maxRdAtomic(maxRdAtomic)
            .maxDestRdAtomic(maxDestRdAtomic).cap(cap);
        final AhAttr av = ahAttr;
        if (av != null)
        {
            attr.ahAttr(av);
        }
        return attr.clearMask();
    }

    /**
     * Move to ERR because of a completion error, as rxe does, flushing both queues.
     */
    public final void enterError()
    {
        sendLock.lock();
        try
        {
            if (state != QpState.ERR)
            {
                state = QpState.ERR;
                flushQueues();
            }
        }
        finally
        {
            sendLock.unlock();
        }
    }

    /**
     * Send lock held, the QP in ERR: complete every outstanding WQE of both queues with WR_FLUSH_ERR.
     */
    protected final void flushQueues()
    {
        transport.flush();
        if (recvQueue != null)
        {
            recvQueue.drain(wrId -> recvCompletions.flushRecv(wrId, qpNum));
        }
    }

    @Override
    public String toString()
    {
        return label + " (" + state + ")";
    }
}
