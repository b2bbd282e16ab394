package io.rdma4j.tools;

import io.rdma4j.cm.CmId;
import io.rdma4j.cm.UdParam;
import io.rdma4j.tools.common.Closing;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpCreateFlag;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * One mckey connection: a CM id with its PD, CQ (on a completion channel, so waiting costs no
 * CPU while several processes share two cores), UD QP, buffers and, once joined, the group's
 * address handle. Buffers are a ring of slots of size + 40 (the GRH) rather than mckey's single
 * buffer, so every message can be read after it lands and a send buffer is never rewritten while
 * the device may still read it.
 */
final class McKeyNode implements AutoCloseable
{
    /** The GRH the device writes ahead of every UD receive. */
    static final int GRH_BYTES = 40;

    /** Slots are capped so a large -C does not mean a large buffer; receives are reposted. */
    static final int MAX_SLOTS = 4096;

    private static final long WAIT_SLICE_MS = 100;

    private final int index;
    private final CmId id;
    private final ReceiveStats stats = new ReceiveStats();
    private final WorkCompletion[] wcs = WorkCompletion.array(16);
    private final RecvWr recvWr = new RecvWr();
    private ProtectionDomain pd;
    private CompletionChannel compChannel;
    private CompletionQueue cq;
    private QueuePair qp;
    private Arena arena;
    private MemorySegment buffer;
    /** Per slot, where a received message starts (after the GRH): made once, so receiving allocates nothing. */
    private MemorySegment[] received;
    private MemoryRegion mr;
    private AddressHandle ah;
    private int slots;
    private int slotSize;
    private int remoteQpn;
    private int remoteQkey;
    private boolean joined;
    private long outstandingSends;
    private long sendErrors;

    McKeyNode(final int index, final CmId id)
    {
        this.index = index;
        this.id = id;
    }

    int index()
    {
        return index;
    }

    CmId id()
    {
        return id;
    }

    boolean joined()
    {
        return joined;
    }

    ReceiveStats stats()
    {
        return stats;
    }

    /**
     * Make the verbs resources once the address is resolved, as mckey's init_node: CQ of twice
     * the queue depth, UD QP through the CM (so it is RTS with the CM's Q_Key), one MR.
     *
     * @param blockSelfLoopback mckey -l: the QP does not get back the multicast it sends.
     */
    void init(final int count, final int size, final boolean blockSelfLoopback)
    {
        final Context ctx = id.verbs();
        slots = Math.max(1, Math.min(count, MAX_SLOTS));
        slotSize = size + GRH_BYTES;
        pd = ctx.allocPd();
        compChannel = ctx.createCompChannel();
        cq = ctx.createCq(2 * slots, compChannel, 0);
        final QpInitAttr attr = QpInitAttr.of(QpType.UD, cq, new QpCap(slots, slots, 1, 1, 0));
        qp = id.createQp(pd, blockSelfLoopback ? attr.withCreateFlags(QpCreateFlag.BLOCK_SELF_MCAST_LB) : attr);
        arena = Arena.ofShared();
        buffer = arena.allocate((long)slots * slotSize, 64);
        mr = pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE));
        received = new MemorySegment[slots];
        for (int slot = 0; slot < slots; slot++)
        {
            received[slot] = buffer.asSlice((long)slot * slotSize + GRH_BYTES, size);
        }
    }

    /**
     * Post a receive into every slot, before joining, so nothing sent after the join is lost.
     */
    void postReceives()
    {
        for (int slot = 0; slot < slots; slot++)
        {
            postReceive(slot);
        }
    }

    private void postReceive(final int slot)
    {
        recvWr.wrId(slot).sge(mr, (long)slot * slotSize, slotSize);
        qp.postRecv(recvWr);
    }

    /**
     * Take what MULTICAST_JOIN says about the group: its address vector, QPN and Q_Key.
     */
    void onJoin(final UdParam param)
    {
        remoteQpn = param.qpNum();
        remoteQkey = param.qkey();
        ah = pd.createAh(param.ahAttr());
        joined = true;
    }

    /**
     * Send {@code count} messages to the group, each SEND_WITH_IMM carrying the own QPN, and wait
     * until the device has completed them all, so the process does not tear the QP down under
     * messages still queued.
     *
     * @return true if every send completed before the deadline ({@link #sendErrors} says how
     *         many in error).
     */
    boolean send(final int count, final int size, final long intervalNanos, final long deadlineNanos)
        throws InterruptedException
    {
        final SendWr wr = new SendWr().opcode(WrOpcode.SEND_WITH_IMM).immData(qp.qpNum())
            .ud(ah, remoteQpn, remoteQkey).sendFlags(SendFlags.SIGNALED);
        cq.requestNotify(false);
        long next = System.nanoTime();
        for (int seq = 0; seq < count; seq++)
        {
            while (outstandingSends >= slots)
            {
                if (!waitForCompletions(deadlineNanos, null))
                {
                    return false;
                }
            }
            final int slot = seq % slots;
            final MemorySegment message = buffer.asSlice((long)slot * slotSize, size);
            if (size >= Payload.HEADER_BYTES)
            {
                Payload.write(message, seq, Payload.nowMicros(), count);
            }
            wr.wrId(seq).sge(mr, (long)slot * slotSize, size);
            qp.postSend(wr);
            outstandingSends++;
            if (intervalNanos > 0)
            {
                next += intervalNanos;
                pace(next);
            }
        }
        while (outstandingSends > 0)
        {
            if (!waitForCompletions(deadlineNanos, null))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @return sends that completed in error.
     */
    long sendErrors()
    {
        return sendErrors;
    }

    private static void pace(final long until)
    {
        long left = until - System.nanoTime();
        // parkNanos oversleeps by tens of microseconds: spin for short gaps.
        if (left > 200_000)
        {
            LockSupport.parkNanos(left - 100_000);
        }
        while ((left = until - System.nanoTime()) > 0)
        {
            Thread.onSpinWait();
        }
    }

    /**
     * Receive until {@code expected} distinct messages came (when expected > 0), the deadline
     * passes, or {@code stop} is set.
     *
     * @return true if the deadline passed first.
     */
    boolean receive(final long expected, final long deadlineNanos, final AtomicBoolean stop)
        throws InterruptedException
    {
        cq.requestNotify(false);
        while (true)
        {
            drain();
            if (expected > 0 && stats.unique() >= expected)
            {
                return false;
            }
            if (stop != null && stop.get())
            {
                drain();
                return false;
            }
            if (!waitForCompletions(deadlineNanos, stop))
            {
                return true;
            }
        }
    }

    /**
     * Sleep on the completion channel until an event, the deadline, or stop; re-arm; drain.
     *
     * @return false if the deadline passed.
     */
    private boolean waitForCompletions(final long deadlineNanos, final AtomicBoolean stop)
        throws InterruptedException
    {
        while (true)
        {
            if (drain() > 0)
            {
                return true;
            }
            final long left = deadlineNanos - System.nanoTime();
            if (left <= 0)
            {
                return false;
            }
            if (stop != null && stop.get())
            {
                return true;
            }
            final long waitMs = Math.max(1, Math.min(WAIT_SLICE_MS, TimeUnit.NANOSECONDS.toMillis(left)));
            final CompletionQueue fired = compChannel.getCqEvent(waitMs, TimeUnit.MILLISECONDS);
            if (fired != null)
            {
                fired.ackEvents(1);
                fired.requestNotify(false);
                drain();
                return true;
            }
        }
    }

    private int drain()
    {
        int total = 0;
        int n;
        while ((n = cq.poll(wcs)) > 0)
        {
            total += n;
            for (int i = 0; i < n; i++)
            {
                handle(wcs[i]);
            }
        }
        return total;
    }

    private void handle(final WorkCompletion wc)
    {
        if (wc.opcode() == WcOpcode.SEND)
        {
            outstandingSends--;
            if (!wc.isSuccess())
            {
                sendErrors++;
                System.out.printf("mckey: send completion error: %s%n", wc.status().description());
            }
            return;
        }
        if (!wc.isSuccess())
        {
            stats.recordError();
            return;
        }
        final long receivedAt = Payload.nowMicros();
        final int slot = (int)wc.wrId();
        final int length = Math.max(0, wc.byteLen() - GRH_BYTES);
        final MemorySegment message = received[slot];
        if (Payload.isPresent(message, length))
        {
            stats.record(wc.immData(), Payload.sequence(message), receivedAt - Payload.sentMicros(message));
        }
        else
        {
            // rdma-core's mckey, or a message too short for the header: counted as rdma-core counts it
            stats.recordPlain();
        }
        postReceive(slot);
    }

    /**
     * Free everything in the order libibverbs requires: AH, QP, CQ, channel, MR, PD, then the id.
     */
    @Override
    public void close()
    {
        closeQuietly(ah);
        if (qp != null)
        {
            try
            {
                id.destroyQp();
            }
            catch (final RuntimeException ex)
            {
                System.err.println("mckey: destroying QP: " + ex.getMessage());
            }
        }
        closeQuietly(cq);
        closeQuietly(compChannel);
        closeQuietly(mr);
        closeQuietly(pd);
        if (arena != null)
        {
            arena.close();
        }
        closeQuietly(id);
    }

    private static void closeQuietly(final AutoCloseable resource)
    {
        Closing.closeReporting(resource, message -> System.err.println("mckey: cleanup: " + message));
    }
}
