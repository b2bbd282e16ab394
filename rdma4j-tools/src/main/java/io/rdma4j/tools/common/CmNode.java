package io.rdma4j.tools.common;

import io.rdma4j.cm.CmId;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;

import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;

/**
 * What librdmacm's example tools (udaddy, cmatose) keep per connection: the CM id, whether it is connected, and
 * the verbs objects made for it, a PD, a completion channel the CQs report to (so that waiting for completions
 * sleeps where the C tools spin), one message buffer and its region. The tool adds its CQs and QP type, and
 * releases what is its own first ({@link #releaseOwn}); the rest goes in the C tools' destroy_node order: QP,
 * CQs, channel, region and buffer, PD, and last the id.
 */
public abstract class CmNode implements AutoCloseable
{
    private static final long WAIT_SLICE_MS = 100;

    private final int index;
    private final String tool;
    private CmId id;
    private boolean connected;
    /** The node's PD, made by the tool's init. */
    protected ProtectionDomain pd;
    /** The channel every CQ of the node reports to. */
    protected CompletionChannel channel;
    /** The message buffer's memory. */
    protected Arena arena;
    /** The message buffer's region. */
    protected MemoryRegion mr;

    /**
     * @param index the node's number, its work requests' id.
     * @param tool  the tool's name, which begins its cleanup messages.
     */
    protected CmNode(final int index, final String tool)
    {
        this.index = index;
        this.tool = tool;
    }

    /**
     * @return the node's number.
     */
    public final int index()
    {
        return index;
    }

    /**
     * @return the node's CM id, or null before it has one or after it was given up.
     */
    public final CmId id()
    {
        return id;
    }

    /**
     * @param cmId the node's CM id.
     */
    public final void id(final CmId cmId)
    {
        id = cmId;
    }

    /**
     * @return true once its connection (or SIDR exchange) was established.
     */
    public final boolean connected()
    {
        return connected;
    }

    /**
     * @param value whether it is connected.
     */
    public final void connected(final boolean value)
    {
        connected = value;
    }

    /**
     * Sleep on the completion channel until a completion event or {@code nanos} pass; re-arm the CQ that fired.
     *
     * @param nanos the longest wait, cut to slices of {@value #WAIT_SLICE_MS} ms so the caller checks its clock.
     * @return true if an event came.
     * @throws InterruptedException if interrupted while waiting.
     */
    public final boolean await(final long nanos) throws InterruptedException
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
     * The C tools' destroy_node: everything, and last the id.
     */
    @Override
    public final void close()
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
     * Free everything but the id, and forget the id: for a connection request that is refused, whose id may be
     * destroyed only once its event is acknowledged.
     *
     * @return the id, for the caller to destroy.
     */
    public final CmId giveUp()
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

    /**
     * Release what only this tool's node has and must go before the QP (an address handle); nothing by default.
     */
    protected void releaseOwn()
    {
    }

    /**
     * Close the node's CQs (after the QP, before the channel) and forget them.
     */
    protected abstract void releaseCqs();

    /**
     * @param resource closed, a failure said on stderr under the tool's name and otherwise ignored.
     */
    protected final void closeQuietly(final AutoCloseable resource)
    {
        Closing.closeReporting(resource, message -> System.err.println(tool + ": cleanup: " + message));
    }

    private void releaseVerbs()
    {
        releaseOwn();
        if (id.qp() != null)
        {
            try
            {
                id.destroyQp();
            }
            catch (final RuntimeException ex)
            {
                System.err.println(tool + ": destroying QP: " + ex.getMessage());
            }
        }
        releaseCqs();
        closeQuietly(channel);
        closeQuietly(mr);
        if (arena != null)
        {
            arena.close();
        }
        closeQuietly(pd);
        channel = null;
        mr = null;
        arena = null;
        pd = null;
    }
}
