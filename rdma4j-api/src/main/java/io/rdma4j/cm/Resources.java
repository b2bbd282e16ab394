package io.rdma4j.cm;

import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.SharedReceiveQueue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A connection's whole tree of resources, released in one try-with-resources in the order libibverbs and
 * librdmacm require, whatever the order they were added in:
 * <ol>
 *   <li>QPs, an id's QP included ({@link CmId#destroyQp()}),</li>
 *   <li>address handles and memory regions,</li>
 *   <li>shared receive queues,</li>
 *   <li>completion queues,</li>
 *   <li>completion channels,</li>
 *   <li>protection domains,</li>
 *   <li>connection manager ids (a listener after the ids it accepted, if added first),</li>
 *   <li>event channels,</li>
 *   <li>device contexts,</li>
 *   <li>anything else ({@link java.lang.foreign.Arena}s whose memory the regions covered, say),</li>
 * </ol>
 * each group newest first. Every resource is closed even if an earlier one fails; the first failure is thrown
 * with the later ones suppressed on it, and in a try-with-resources whose body threw, the body's exception
 * stays the one the caller sees. The verbs' own {@code close} calls keep libibverbs' rule (EBUSY while a
 * child lives): this is the way not to meet it.
 * <pre>{@code
 * try (Resources resources = new Resources())
 * {
 *     EventChannel channel = resources.add(RdmaCm.createEventChannel());
 *     CmId id = resources.add(channel.createId("client", PortSpace.TCP));
 *     ...
 *     CompletionQueue cq = resources.add(id.verbs().createCq(64, null, 0));
 *     MemoryRegion mr = resources.add(pd.regMr(buffer, access));
 *     id.createQp(pd, QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)));
 * }
 * }</pre>
 * Not thread-safe: one thread adds and closes.
 */
public final class Resources implements AutoCloseable
{
    private static final int QP = 0;
    private static final int MEMORY = 1;
    private static final int SRQ = 2;
    private static final int CQ = 3;
    private static final int CHANNEL = 4;
    private static final int PD = 5;
    private static final int ID = 6;
    private static final int EVENT_CHANNEL = 7;
    private static final int CONTEXT = 8;
    private static final int OTHER = 9;

    private final List<Entry> entries = new ArrayList<>();
    private boolean closed;

    private record Entry(int rank, int sequence, AutoCloseable resource)
    {
    }

    /**
     * @param resource what to release with the others; an id's QP goes with it, first.
     * @param <T>      its type.
     * @return the resource, for chaining into a declaration.
     * @throws IllegalStateException if these resources were closed already.
     */
    public <T extends AutoCloseable> T add(final T resource)
    {
        if (closed)
        {
            throw new IllegalStateException("these resources are closed: " + resource + " was not added");
        }
        if (resource instanceof final CmId id)
        {
            // the QP the id will have by then, if any: rdma_destroy_qp before rdma_destroy_id
            entries.add(new Entry(QP, entries.size(), () ->
            {
                if (id.qp() != null)
                {
                    id.destroyQp();
                }
            }));
        }
        entries.add(new Entry(rank(resource), entries.size(), resource));
        return resource;
    }

    private static int rank(final AutoCloseable resource)
    {
        return switch (resource)
        {
            case final QueuePair qp -> QP;
            case final AddressHandle ah -> MEMORY;
            case final MemoryRegion mr -> MEMORY;
            case final SharedReceiveQueue srq -> SRQ;
            case final CompletionQueue cq -> CQ;
            case final CompletionChannel channel -> CHANNEL;
            case final ProtectionDomain pd -> PD;
            case final CmId id -> ID;
            case final EventChannel channel -> EVENT_CHANNEL;
            case final Context context -> CONTEXT;
            default -> OTHER;
        };
    }

    /**
     * Release everything, in dependency order, newest first within a kind; a second call does nothing.
     *
     * @throws RuntimeException the first failure (an {@link io.rdma4j.verbs.RdmaException}, or a checked
     *                          exception of another resource wrapped in an {@link IllegalStateException}), the
     *                          later ones suppressed on it.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        entries.sort(Comparator.comparingInt(Entry::rank).thenComparing(Entry::sequence, Comparator.reverseOrder()));
        RuntimeException first = null;
        for (final Entry entry : entries)
        {
            try
            {
                entry.resource().close();
            }
            catch (final RuntimeException ex)
            {
                first = keep(first, ex);
            }
            catch (final Exception ex)
            {
                first = keep(first, new IllegalStateException("closing " + entry.resource() + " failed", ex));
            }
        }
        entries.clear();
        if (first != null)
        {
            throw first;
        }
    }

    private static RuntimeException keep(final RuntimeException first, final RuntimeException next)
    {
        if (first == null)
        {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
