package io.rdma4j.tools.perf;

import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.UdParam;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcFlags;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.util.Arrays;

/**
 * What perftest's {@code -R} on UD learns about the peer's QPs through rdma_cm instead of its exchange: each QP's
 * number, the Q_Key its datagrams must carry, and the address to reach it. The client has them from the SIDR reply
 * (ESTABLISHED's UD parameters); a server whose test sends (send_lat) has them from the client's SEND with
 * immediate, the immediate the client's QPN, the address from its GRH, the Q_Key its own QP's (rdma_cm gives every
 * UD QP in the UDP port space the same one). A send_bw server sends nothing and learns nothing.
 */
final class UdPeer
{
    /** perftest's SEND of the client's QPN: four bytes of payload (what perftest posts; the immediate is the data). */
    private static final int QPN_MESSAGE_BYTES = Integer.BYTES;

    private int[] qpns = new int[0];
    private int qkey;
    private AhAttr address;

    /**
     * The server's side of one SIDR exchange: make the QP on the id, post the receive the client's QPN will land
     * in when the test needs it, accept (the reply carries this QP's number), then wait for that SEND.
     *
     * @param index which QP of the run.
     * @param id    the request's id.
     * @param peer  this side's resources.
     * @param cfg   the run.
     * @throws PerfException        if the client's SEND failed or was not one.
     * @throws InterruptedException if interrupted.
     */
    void accepted(final int index, final CmId id, final RdmaPeer peer, final PerfConfig cfg)
        throws PerfException, InterruptedException
    {
        final QueuePair qp = id.createQp(peer.pd(), peer.qpInitAttr());
        peer.adoptQp(index, qp);
        final boolean learns = sendsBack(cfg);
        if (learns)
        {
            peer.postRecvs(index, 1, QPN_MESSAGE_BYTES);
        }
        id.accept(ConnParam.builder().qpNum(qp.qpNum()).build());
        if (!learns)
        {
            return;
        }
        final WorkCompletion wc = awaitOne(peer);
        if (wc.opcode() != WcOpcode.RECV || (wc.wcFlags() & WcFlags.WITH_IMM) == 0)
        {
            throw new PerfException("rdma_cm UD: the client's first message was a " + wc.opcode() + " without its " +
                "QPN in the immediate data, which perftest's client sends");
        }
        final AhAttr from;
        try
        {
            from = peer.context().initAhFromWc(1, wc, peer.buffer().asSlice(0, RdmaPeer.GRH_BYTES));
        }
        catch (final RdmaException ex)
        {
            throw new PerfException("rdma_cm UD: no address in the client's message: " + ex.getMessage(), ex);
        }
        learn(index, wc.immData(), qp.query().qkey(), from);
    }

    /**
     * The client's side once ESTABLISHED came: the SIDR reply's QPN, Q_Key and address; then, when the server's
     * test sends, this QP's number to the server in a SEND with immediate.
     *
     * @param index which QP of the run.
     * @param reply ESTABLISHED's UD parameters.
     * @param peer  this side's resources, the QP adopted.
     * @param cfg   the run.
     * @throws PerfException        if the SEND failed.
     * @throws InterruptedException if interrupted.
     */
    void replied(final int index, final UdParam reply, final RdmaPeer peer, final PerfConfig cfg)
        throws PerfException, InterruptedException
    {
        if (reply == null)
        {
            throw new PerfException("rdma_cm UD: ESTABLISHED without the SIDR reply's QPN and Q_Key");
        }
        learn(index, reply.qpNum(), reply.qkey(), reply.ahAttr());
        if (!sendsBack(cfg))
        {
            return;
        }
        final QueuePair qp = peer.qp(index);
        final SendWr wr = new SendWr().wrId(RdmaPeer.SEND_WRID).opcode(WrOpcode.SEND_WITH_IMM)
            .sendFlags(SendFlags.SIGNALED).immData(qp.qpNum()).sge(peer.mr(), peer.sourceOffset(), QPN_MESSAGE_BYTES);
        try (AddressHandle ah = peer.pd().createAh(reply.ahAttr()))
        {
            qp.postSend(wr.ud(ah, reply.qpNum(), reply.qkey()));
            awaitOne(peer);
        }
    }

    /**
     * perftest passes the client's QPN only when the server's test sends to it: the latency tests (and a duplex
     * bandwidth test, which rdma4j perf does not run).
     */
    private static boolean sendsBack(final PerfConfig cfg)
    {
        return cfg.test().isLatency();
    }

    private static WorkCompletion awaitOne(final RdmaPeer peer) throws PerfException, InterruptedException
    {
        final int n = peer.await();
        if (n != 1)
        {
            throw new PerfException("rdma_cm UD: " + n + " completions where the QPN's one SEND makes one");
        }
        return peer.completions()[0];
    }

    private void learn(final int index, final int qpn, final int key, final AhAttr route)
    {
        if (qpns.length <= index)
        {
            qpns = Arrays.copyOf(qpns, index + 1);
        }
        qpns[index] = qpn;
        qkey = key;
        if (address == null)
        {
            address = route;
        }
    }

    /**
     * @return the peer's QPNs by this side's QP index (empty when nothing was learnt).
     */
    int[] qpns()
    {
        return qpns.clone();
    }

    /**
     * @return the Q_Key the peer's QPs expect.
     */
    int qkey()
    {
        return qkey;
    }

    /**
     * @return the address of the peer (one for all its QPs: they are on one port), or null when nothing was learnt.
     */
    AhAttr address()
    {
        return address;
    }
}
