package io.rdma4j.tools.cmatose;

import io.rdma4j.cm.CmId;
import io.rdma4j.tools.common.Closing;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * One cmatose connection: a CM id with its PD, a send CQ and a receive CQ, an RC QP that signals
 * every send, and one message buffer that, as in cmatose, every receive and every send uses. Both
 * CQs report to one completion channel so that waiting for completions sleeps instead of spinning
 * (cmatose spins).
 */
final class CmatoseNode implements AutoCloseable
{
    private static final long WAIT_SLICE_MS = 100;

    private final int index;
    private CmId id;
    private boolean connected;
    private ProtectionDomain pd;
    private CompletionChannel channel;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private Arena arena;
    private MemoryRegion mr;
    private long receivedBytes;
    private int received;

    CmatoseNode(final int index)
    {
        this.index = index;
    }

    int index()
    {
        return index;
    }

    CmId id()
    {
        return id;
    }

    void id(final CmId cmId)
    {
        id = cmId;
    }

    boolean connected()
    {
        return connected;
    }

    void connected(final boolean value)
    {
        connected = value;
    }

    /**
     * cmatose's init_node: PD, the two CQs, the QP, and the message buffer when there are messages.
     *
     * @param depth CQ entries and queue depth: the message count, at least 1.
     * @param size  the message size, or 0 for no buffer.
     */
    void init(final int depth, final int size)
    {
        pd = id.verbs().allocPd();
        channel = id.verbs().createCompChannel();
        sendCq = id.verbs().createCq(depth, channel, 0);
        recvCq = id.verbs().createCq(depth, channel, 0);
        id.createQp(pd, new QpInitAttr(QpType.RC, sendCq, recvCq, null, new QpCap(depth, depth, 1, 1, 0), true));
        if (size > 0)
        {
            arena = Arena.ofShared();
            mr = pd.regMr(arena.allocate(size, 64), EnumSet.of(AccessFlag.LOCAL_WRITE));
        }
    }

    /**
     * Post {@code count} receives of {@code size} bytes, all into the one buffer.
     */
    void postRecvs(final int count, final int size)
    {
        final RecvWr wr = new RecvWr().wrId(index).sge(mr, 0, size);
        for (int i = 0; i < count; i++)
        {
            id.qp().postRecv(wr);
        }
    }

    /**
     * Post {@code count} SENDs of {@code size} bytes from the one buffer; the QP signals them all.
     */
    void postSends(final int count, final int size)
    {
        final SendWr wr = new SendWr().wrId(index).opcode(WrOpcode.SEND).sendFlags(0).sge(mr, 0, size);
        for (int i = 0; i < count; i++)
        {
            id.qp().postSend(wr);
        }
    }

    /**
     * @param receive true for the receive CQ, false for the send CQ.
     * @return that CQ.
     */
    CompletionQueue cq(final boolean receive)
    {
        return receive ? recvCq : sendCq;
    }

    /**
     * Count a successful receive.
     */
    void received(final WorkCompletion wc)
    {
        received++;
        receivedBytes += wc.byteLen();
    }

    int receivedCount()
    {
        return received;
    }

    long receivedBytes()
    {
        return receivedBytes;
    }

    /**
     * Sleep on the completion channel until a completion event or {@code nanos} pass; re-arm the CQ
     * that fired.
     *
     * @return true if an event came.
     */
    boolean await(final long nanos) throws InterruptedException
    {
        final long waitMs = Math.max(1, Math.min(WAIT_SLICE_MS, TimeUnit.NANOSECONDS.toMillis(nanos)));
        final CompletionQueue fired = channel.getCqEvent(waitMs, TimeUnit.MILLISECONDS);
        if (fired == null)
        {
            return false;
        }
        fired.ackEvents(1);
        fired.requestNotify(false);
        return true;
    }

    /**
     * cmatose's destroy_node: QP, CQs, MR and buffer, PD, and last the id.
     */
    @Override
    public void close()
    {
        if (id == null)
        {
            return;
        }
        releaseVerbs();
        closeQuietly(id);
        id = null;
    }

    /**
     * Free everything but the id, and forget the id: for a connection request that is refused,
     * whose id may be destroyed only once its event is acknowledged.
     *
     * @return the id, for the caller to destroy.
     */
    CmId giveUp()
    {
        final CmId given = id;
        if (given != null)
        {
            releaseVerbs();
        }
        id = null;
        connected = false;
        return given;
    }

    private void releaseVerbs()
    {
        if (id.qp() != null)
        {
            try
            {
                id.destroyQp();
            }
            catch (final RuntimeException ex)
            {
                System.err.println("cmatose: destroying QP: " + ex.getMessage());
            }
        }
        closeQuietly(sendCq);
        closeQuietly(recvCq);
        closeQuietly(channel);
        closeQuietly(mr);
        if (arena != null)
        {
            arena.close();
        }
        closeQuietly(pd);
        sendCq = null;
        recvCq = null;
        channel = null;
        mr = null;
        arena = null;
        pd = null;
    }

    private static void closeQuietly(final AutoCloseable resource)
    {
        Closing.closeReporting(resource, message -> System.err.println("cmatose: cleanup: " + message));
    }
}
