package io.rdma4j.tools.udaddy;

import io.rdma4j.cm.CmId;
import io.rdma4j.tools.common.Closing;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.ReplyAddress;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * One udaddy path: a CM id with its PD, CQ, UD QP, one message buffer with room for the GRH, and
 * once known, the address handle, QPN and Q_Key of the other end. As in udaddy every receive and
 * every send uses the same buffer. The CQ reports to a completion channel so that waiting for
 * completions sleeps instead of spinning (udaddy spins).
 */
final class UdaddyNode implements AutoCloseable
{
    private static final long WAIT_SLICE_MS = 100;

    private final int index;
    private CmId id;
    private boolean connected;
    private ProtectionDomain pd;
    private CompletionChannel channel;
    private CompletionQueue cq;
    private Arena arena;
    private MemorySegment mem;
    private MemoryRegion mr;
    private AddressHandle ah;
    private int remoteQpn;
    private int remoteQkey;

    UdaddyNode(final int index)
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

    boolean hasAh()
    {
        return ah != null;
    }

    QueuePair qp()
    {
        return id.qp();
    }

    Context verbs()
    {
        return id.verbs();
    }

    ProtectionDomain pd()
    {
        return pd;
    }

    /**
     * The PD, as udaddy's init_node makes it first.
     */
    void allocPd()
    {
        pd = id.verbs().allocPd();
    }

    /**
     * @param cqe entries.
     */
    void createCq(final int cqe)
    {
        channel = id.verbs().createCompChannel();
        cq = id.verbs().createCq(cqe, channel, 0);
    }

    /**
     * @param depth send and receive queue depth.
     */
    void createQp(final int depth)
    {
        id.createQp(pd, QpInitAttr.of(QpType.UD, cq, new QpCap(depth, depth, 1, 1, 0)));
    }

    /**
     * @param bytes message size plus the GRH.
     */
    void createMessage(final int bytes)
    {
        arena = Arena.ofShared();
        mem = arena.allocate(bytes, 64);
        mr = pd.regMr(mem, EnumSet.of(AccessFlag.LOCAL_WRITE));
    }

    /**
     * Post {@code count} receives, all into the one buffer.
     */
    void postRecvs(final int count, final int bytes)
    {
        final RecvWr wr = new RecvWr().wrId(index).sge(mr, 0, bytes);
        for (int i = 0; i < count; i++)
        {
            id.qp().postRecv(wr);
        }
    }

    /**
     * Post {@code count} SEND_WITH_IMM of {@code size} bytes to the other end, each carrying the
     * own QPN as immediate data.
     *
     * @param sendFlags SIGNALED or 0.
     */
    void postSends(final int count, final int size, final int sendFlags)
    {
        final SendWr wr = new SendWr().wrId(index).opcode(WrOpcode.SEND_WITH_IMM).sendFlags(sendFlags)
            .immData(id.qp().qpNum()).ud(ah, remoteQpn, remoteQkey).sge(mr, 0, size);
        for (int i = 0; i < count; i++)
        {
            id.qp().postSend(wr);
        }
    }

    /**
     * Take the other end from an address vector, QPN and Q_Key.
     */
    void remote(final AhAttr attr, final int qpn, final int qkey)
    {
        ah = pd.createAh(attr);
        remoteQpn = qpn;
        remoteQkey = qkey;
    }

    int remoteQpn()
    {
        return remoteQpn;
    }

    int remoteQkey()
    {
        return remoteQkey;
    }

    /**
     * @return the buffer's GRH slot.
     */
    MemorySegment grh()
    {
        return mem.asSlice(0, ReplyAddress.GRH_BYTES);
    }

    /**
     * Arm the CQ so a completion after this call wakes {@link #await}.
     */
    void arm()
    {
        cq.requestNotify(false);
    }

    /**
     * @return completions polled into {@code wcs}.
     */
    int poll(final WorkCompletion[] wcs)
    {
        return cq.poll(wcs);
    }

    /**
     * Sleep on the completion channel until a completion event or {@code nanos} pass; re-arm.
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
     * udaddy's destroy_node: AH, QP, CQ, MR and buffer, PD, and last the id.
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
        closeQuietly(ah);
        ah = null;
        if (id.qp() != null)
        {
            try
            {
                id.destroyQp();
            }
            catch (final RuntimeException ex)
            {
                System.err.println("udaddy: destroying QP: " + ex.getMessage());
            }
        }
        closeQuietly(cq);
        closeQuietly(channel);
        closeQuietly(mr);
        if (arena != null)
        {
            arena.close();
        }
        closeQuietly(pd);
        cq = null;
        channel = null;
        mr = null;
        arena = null;
        pd = null;
    }

    private static void closeQuietly(final AutoCloseable resource)
    {
        Closing.closeReporting(resource, message -> System.err.println("udaddy: cleanup: " + message));
    }
}
