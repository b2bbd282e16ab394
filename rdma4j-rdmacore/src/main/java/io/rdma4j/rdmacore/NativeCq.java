package io.rdma4j.rdmacore;

import io.rdma4j.rdmacore.abi.IbvCq;
import io.rdma4j.rdmacore.abi.IbvWc;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A completion queue ({@code struct ibv_cq *}). Polling calls the provider's {@code poll_cq} from the
 * context's ops table into an array of {@code struct ibv_wc} this CQ owns, then copies each entry into the
 * caller's reusable {@link WorkCompletion}s: nothing is allocated per poll.
 */
public final class NativeCq implements CompletionQueue
{
    /** How many completions one {@code poll_cq} call may return at most: the size of the native array. */
    public static final int POLL_BATCH = 64;

    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    private static final WcOpcode[] SEND_OPCODES = {
        WcOpcode.SEND, WcOpcode.RDMA_WRITE, WcOpcode.RDMA_READ, WcOpcode.COMP_SWAP, WcOpcode.FETCH_ADD,
        WcOpcode.BIND_MW, WcOpcode.LOCAL_INV };
    private static final WcStatus[] STATUSES = WcStatus.values();

    private final NativeContext context;
    private final MemorySegment cq;
    private final NativeCompChannel channel;
    private final int capacity;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment wcs;
    private final MemorySegment pollCq;
    private final MemorySegment reqNotifyCq;
    private long eventsDelivered;
    private long eventsAcked;
    private volatile boolean closed;

    NativeCq(final NativeContext context, final MemorySegment cq, final NativeCompChannel channel)
    {
        this.context = context;
        this.cq = cq.reinterpret(IbvCq.LAYOUT.byteSize());
        this.channel = channel;
        this.capacity = this.cq.get(ValueLayout.JAVA_INT, IbvCq.CQE);
        this.wcs = arena.allocate(IbvWc.LAYOUT, POLL_BATCH);
        this.pollCq = context.ops().pollCq;
        this.reqNotifyCq = context.ops().reqNotifyCq;
    }

    /**
     * @return the {@code struct ibv_cq *}.
     */
    public MemorySegment address()
    {
        return cq;
    }

    @Override
    public NativeContext context()
    {
        return context;
    }

    @Override
    public NativeCompChannel channel()
    {
        return channel;
    }

    @Override
    public int capacity()
    {
        return capacity;
    }

    @Override
    public int poll(final WorkCompletion[] wcs)
    {
        return poll(wcs, wcs.length);
    }

    @Override
    public synchronized int poll(final WorkCompletion[] out, final int max)
    {
        checkOpen();
        final int n = Math.min(Math.min(max, out.length), POLL_BATCH);
        if (n <= 0)
        {
            return 0;
        }
        final int polled;
        try
        {
            polled = (int)OpsTable.POLL_CQ.invokeExact(pollCq, cq, n, wcs);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("poll_cq threw", ex);
        }
        if (polled < 0)
        {
            // providers return a negative number with no errno meaning (mlx5: -2, CQ_POLL_ERR)
            throw new RdmaException(Errno.EIO, "poll_cq of the CQ failed with " + polled +
                ": the CQ is in error (an overrun shows as a CQ_ERR async event)");
        }
        for (int i = 0; i < polled; i++)
        {
            read(wcs, i * IbvWc.SIZE, out[i]);
        }
        return polled;
    }

    private static void read(final MemorySegment wcs, final long base, final WorkCompletion wc)
    {
        final int status = wcs.get(ValueLayout.JAVA_INT, base + IbvWc.STATUS);
        final int opcode = wcs.get(ValueLayout.JAVA_INT, base + IbvWc.OPCODE);
        wc.set(wcs.get(ValueLayout.JAVA_LONG, base + IbvWc.WR_ID),
            status >= 0 && status < STATUSES.length ? STATUSES[status] : WcStatus.GENERAL_ERR,
            opcode(opcode), wcs.get(ValueLayout.JAVA_INT, base + IbvWc.BYTE_LEN),
            // the immediate is in network order in C; the API holds it as the number that was sent
            wcs.get(INT_BE, base + IbvWc.IMM_DATA), wcs.get(ValueLayout.JAVA_INT, base + IbvWc.QP_NUM),
            wcs.get(ValueLayout.JAVA_INT, base + IbvWc.SRC_QP), wcs.get(ValueLayout.JAVA_INT, base + IbvWc.WC_FLAGS),
            wcs.get(ValueLayout.JAVA_INT, base + IbvWc.VENDOR_ERR));
    }

    private static WcOpcode opcode(final int value)
    {
        if (value >= 0 && value < SEND_OPCODES.length)
        {
            return SEND_OPCODES[value];
        }
        // an error completion's opcode is undefined (ibv_poll_cq(3)); RECV is as good as any
        return value == WcOpcode.RECV_RDMA_WITH_IMM.value() ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV;
    }

    @Override
    public synchronized void requestNotify(final boolean solicitedOnly)
    {
        checkOpen();
        RdmaException.check(channel != null, Errno.EINVAL, "the CQ has no completion channel to notify");
        final int rc;
        try
        {
            rc = (int)OpsTable.REQ_NOTIFY_CQ.invokeExact(reqNotifyCq, cq, solicitedOnly ? 1 : 0);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("req_notify_cq threw", ex);
        }
        if (rc != 0)
        {
            throw NativeErrors.exception(Math.abs(rc), "req_notify_cq");
        }
    }

    synchronized void eventDelivered()
    {
        eventsDelivered++;
    }

    @Override
    public void ackEvents(final int count)
    {
        synchronized (this)
        {
            if (count < 0 || eventsAcked + count > eventsDelivered)
            {
                throw new RdmaException(Errno.EINVAL, "cannot acknowledge " + count + " CQ events: " +
                    (eventsDelivered - eventsAcked) + " are unacknowledged");
            }
            eventsAcked += count;
        }
        if (count > 0)
        {
            Ibverbs.call("ibv_ack_cq_events", cq, count);
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * A native CQ reports an overrun as a {@code CQ_ERR} async event, not as a count: this is always 0.
     */
    @Override
    public long overruns()
    {
        return 0;
    }

    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                throw new RdmaException(Errno.EINVAL, "the CQ is already destroyed");
            }
            // ibv_destroy_cq waits until every delivered event is acknowledged: acknowledge what the caller left
            final long unacked = eventsDelivered - eventsAcked;
            if (unacked > 0)
            {
                Ibverbs.call("ibv_ack_cq_events", cq, (int)unacked);
                eventsAcked = eventsDelivered;
            }
            Ibverbs.check("ibv_destroy_cq", "ibv_destroy_cq", cq);
            closed = true;
        }
        context.unregister(cq);
        arena.close();
        if (channel != null)
        {
            channel.removeCq();
        }
        context.release();
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new RdmaException(Errno.EINVAL, "the CQ is destroyed");
        }
    }
}
