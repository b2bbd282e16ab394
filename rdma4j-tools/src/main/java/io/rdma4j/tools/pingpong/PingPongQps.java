package io.rdma4j.tools.pingpong;

import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.GlobalRoute;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.PortAttr;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WrOpcode;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * What sets one pingpong tool apart from the others: its QPs, from creation through connection to
 * posting, and the few words and sizes its output depends on. {@link PingPongSession} runs the
 * part the four tools share and asks this for the rest; one subclass per tool.
 * <p>
 * The defaults are those of a tool with a single QP that takes its own receives.
 */
abstract class PingPongQps
{
    /** wr_id of every receive, as rdma-core's PINGPONG_RECV_WRID. */
    static final int RECV_WRID = 1;
    /** wr_id of every send, as rdma-core's PINGPONG_SEND_WRID. */
    static final int SEND_WRID = 2;

    /** The run's parameters. */
    protected final PingPongConfig cfg;
    /** The QPs, in the order their addresses go on the wire. */
    protected final List<QueuePair> qps = new ArrayList<>();
    /** The protection domain everything is made in. */
    protected ProtectionDomain pd;
    /** The buffer's registration: every receive and send uses it. */
    protected MemoryRegion mr;
    /** The port, as queried when the local addresses were made. */
    protected PortAttr portInfo;

    private final SendWr sendWr = new SendWr();
    private final RecvWr recvWr = new RecvWr();
    private int sendFlags = SendFlags.SIGNALED;

    /**
     * @param config the run's parameters.
     */
    protected PingPongQps(final PingPongConfig config)
    {
        this.cfg = config;
    }

    /**
     * @return how many QPs the tool runs.
     */
    int count()
    {
        return 1;
    }

    /**
     * @return bytes in front of the payload in the buffer.
     */
    int payloadOffset()
    {
        return 0;
    }

    /**
     * @return the transport of the QPs.
     */
    protected abstract QpType qpType();

    /**
     * Refuse a run the device cannot carry, once the context is open and before anything else is made.
     *
     * @param ctx the open device.
     */
    void checkSize(final Context ctx) throws PingPongException
    {
    }

    /**
     * Make the QPs (and whatever they share) and move them to INIT, in rdma-core's order.
     *
     * @param domain the protection domain.
     * @param cq     the one CQ for sends and receives.
     * @param buffer the registered buffer.
     */
    final void create(final ProtectionDomain domain, final CompletionQueue cq, final MemoryRegion buffer)
        throws PingPongException
    {
        this.pd = domain;
        this.mr = buffer;
        createShared();
        for (int i = 0; i < count(); i++)
        {
            createQp(cq, i);
        }
        for (int i = 0; i < count(); i++)
        {
            try
            {
                qps.get(i).modify(initAttr(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(cfg.ibPort())));
            }
            catch (final RdmaException ex)
            {
                throw PingPongException.withCause("Failed to modify QP" + qpSuffix(i) + " to INIT", ex);
            }
        }
    }

    /**
     * Make what the QPs share, before the first QP.
     */
    protected void createShared() throws PingPongException
    {
    }

    /**
     * @param cq the one CQ.
     * @return what each QP is created with.
     */
    protected QpInitAttr qpInitAttr(final CompletionQueue cq)
    {
        return QpInitAttr.of(qpType(), cq, new QpCap(1, cfg.rxDepth(), 1, 1, 0));
    }

    /**
     * @param attr the move to INIT, state, P_Key index and port set.
     * @return it, with what the transport adds.
     */
    protected abstract QpAttr initAttr(QpAttr attr);

    private void createQp(final CompletionQueue cq, final int index)
        throws PingPongException
    {
        final QueuePair qp;
        try
        {
            qp = pd.createQp(qpInitAttr(cq));
        }
        catch (final RdmaException ex)
        {
            throw PingPongException.withCause("Couldn't create QP" + qpSuffix(index), ex);
        }
        qps.add(qp);
        if (qp.cap().maxInlineData() >= cfg.size())
        {
            sendFlags |= SendFlags.INLINE;
        }
    }

    /**
     * @param index a QP's index.
     * @return how the tool's messages name that QP after "QP".
     */
    protected String qpSuffix(final int index)
    {
        return "";
    }

    /**
     * The addresses to tell the peer: LID, QPN, a random first PSN and the GID, per QP.
     *
     * @param ctx    the open device.
     * @param random where the PSNs come from.
     * @return one per QP.
     */
    final List<PingPongDest> localDests(final Context ctx, final Random random) throws PingPongException
    {
        try
        {
            portInfo = ctx.queryPort(cfg.ibPort());
        }
        catch (final RdmaException ex)
        {
            throw PingPongException.withCause("Couldn't get port info", ex);
        }
        checkLid(portInfo);
        Gid gid = Gid.ZERO;
        if (cfg.gidIndex() >= 0)
        {
            try
            {
                gid = ctx.queryGid(cfg.ibPort(), cfg.gidIndex());
            }
            catch (final RdmaException ex)
            {
                throw PingPongException.withCause(gidFailure(cfg.gidIndex()), ex);
            }
        }
        final List<PingPongDest> mine = new ArrayList<>(count());
        for (int i = 0; i < count(); i++)
        {
            // lrand48() & 0xffffff: a random 24-bit first PSN per QP.
            mine.add(new PingPongDest(portInfo.lid(), qps.get(i).qpNum(), random.nextInt() & 0xFFFFFF, gid));
        }
        return mine;
    }

    /**
     * Refuse a port whose LID the peer cannot address the QPs by.
     *
     * @param port the port's attributes.
     */
    protected void checkLid(final PortAttr port) throws PingPongException
    {
        if (!"Ethernet".equals(port.linkLayer()) && port.lid() == 0)
        {
            throw new PingPongException("Couldn't get local LID");
        }
    }

    /**
     * @param gidIndex the -g index.
     * @return the tool's message when that GID cannot be read.
     */
    protected String gidFailure(final int gidIndex)
    {
        return "Could not get local gid for gid index " + gidIndex;
    }

    /**
     * @return what separates the PSN from the GID on the "local address:" line.
     */
    String localSeparator()
    {
        return ", ";
    }

    /**
     * @param mine the local addresses.
     * @return the addresses as they go on the wire.
     */
    List<PingPongDest> wire(final List<PingPongDest> mine)
    {
        return mine;
    }

    /**
     * Move the QPs to RTS towards the peer's addresses.
     *
     * @param mine   the local addresses (their PSNs are the send PSNs).
     * @param remote the peer's addresses, as many as went on the wire.
     */
    abstract void connect(List<PingPongDest> mine, List<PingPongDest> remote) throws PingPongException;

    /**
     * The address vector towards {@code dest}: with a GRH when the peer sent a GID with an
     * interface id, as rdma-core decides.
     *
     * @param dest     the peer.
     * @param hopLimit the GRH's hop limit.
     * @return the address vector.
     */
    protected final AhAttr addressVector(final PingPongDest dest, final int hopLimit) throws PingPongException
    {
        // rdma-core adds a GRH only when dest->gid.global.interface_id (the low 64 bits) is set.
        if (dest.gid().low() == 0)
        {
            if ("Ethernet".equals(portInfo.linkLayer()))
            {
                // What rxe would refuse too, said plainly: RoCE addresses only by GID.
                throw new PingPongException("the peer sent no GID, and RoCE needs one: run both sides with a GID " +
                    "index (-g 0 for the rdma-core tool; rdma4j's default is 0)");
            }
            return new AhAttr(null, dest.lid(), cfg.sl(), 0, 0, cfg.ibPort());
        }
        return new AhAttr(new GlobalRoute(dest.gid(), 0, cfg.gidIndex(), hopLimit, 0), dest.lid(), cfg.sl(), 0, 0,
            cfg.ibPort());
    }

    /**
     * pp_post_recv: post up to n receives of the whole buffer, stopping at the first refusal.
     *
     * @param n how many.
     * @return how many went: the caller reports a shortfall, as rdma-core's does.
     */
    final int postRecv(final int n)
    {
        recvWr.wrId(RECV_WRID).sge(mr, 0, cfg.size() + payloadOffset());
        int i = 0;
        try
        {
            for (; i < n; i++)
            {
                postRecv(recvWr);
            }
        }
        catch (final RdmaException ex)
        {
            // the count says how many went
        }
        return i;
    }

    /**
     * @param wr one receive, to wherever this tool's receives go.
     */
    protected void postRecv(final RecvWr wr)
    {
        qps.getFirst().postRecv(wr);
    }

    /**
     * Post one SEND of the payload on a QP.
     *
     * @param qpIndex which QP.
     */
    final void postSend(final int qpIndex) throws PingPongException
    {
        sendWr.wrId(SEND_WRID).opcode(WrOpcode.SEND).sendFlags(sendFlags).sge(mr, payloadOffset(), cfg.size());
        address(sendWr);
        try
        {
            qps.get(qpIndex).postSend(sendWr);
        }
        catch (final RdmaException ex)
        {
            throw PingPongException.withCause("Couldn't post send", ex);
        }
    }

    /**
     * @param wr a send: what it needs beyond the QP's own connection (a datagram's address).
     */
    protected void address(final SendWr wr)
    {
    }

    /**
     * @return completions polled at a time.
     */
    int pollBatch()
    {
        return 2;
    }

    /**
     * @return receives left posted at which the tool posts more.
     */
    int refillAt()
    {
        return 1;
    }

    /**
     * @param message the first line of a failure while handling completions.
     * @param ne      completions taken by the poll that failed.
     * @return the lines the tool prints.
     */
    String parseFailed(final String message, final int ne)
    {
        return message;
    }

    /**
     * @param qpn a completion's QPN.
     * @return the index of its QP, -1 if none.
     */
    int qpIndex(final int qpn)
    {
        return 0;
    }

    /**
     * @return true if a peer may still retransmit after the last completion, so the QPs linger.
     */
    boolean reliable()
    {
        return false;
    }

    /**
     * Destroy the QPs and what they share, in rdma-core's pp_close_ctx order (QPs, SRQ, AH).
     *
     * @param closer destroys one resource and keeps the first failure.
     */
    void close(final Closer closer)
    {
        for (final QueuePair qp : qps)
        {
            closer.close(qp, "Couldn't destroy QP");
        }
        qps.clear();
        closeShared(closer);
    }

    /**
     * @param closer destroys one resource and keeps the first failure.
     */
    protected void closeShared(final Closer closer)
    {
    }

    /**
     * Destroys resources in order and keeps the first failure.
     */
    interface Closer
    {
        /**
         * @param resource what to destroy; null is skipped.
         * @param message  rdma-core's message if it refuses.
         */
        void close(AutoCloseable resource, String message);
    }
}
