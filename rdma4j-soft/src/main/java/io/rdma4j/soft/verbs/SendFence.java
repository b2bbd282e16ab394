package io.rdma4j.soft.verbs;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * A close action on a registered segment's arena that hands the device's queued datagrams to the kernel before
 * the arena frees the memory. A device whose link sends payloads in place ({@code Link.queueGathered}) queues
 * their raw addresses, which the kernel reads at the flush, and no scope is held meanwhile: without this action,
 * an arena closed between a packet's staging and its flush would let {@code sendmmsg} read freed memory, maybe
 * another buffer's bytes by then, onto the wire. An arena runs its close actions newest first, and this one is
 * added after the segment was allocated, so it runs while the memory is still there; the link refuses gathered
 * datagrams from an arena already closing, and publishes each before it looks (see {@code SendBatch}).
 * <p>
 * The native provider's {@code MrGuard} is the same idea for the NIC: there the action deregisters.
 */
final class SendFence implements Consumer<MemorySegment>
{
    private final VerbsDevice device;

    private SendFence(final VerbsDevice device)
    {
        this.device = device;
    }

    /**
     * Add the action to the segment's arena. Each registration adds one (the arena keeps it, and the device it
     * names, until it closes); a global arena, which never frees, keeps none.
     *
     * @param segment live shared, automatic or global memory.
     * @param device  the device that may send from it in place.
     * @throws RdmaException EINVAL when the arena closed meanwhile.
     */
    static void on(final MemorySegment segment, final VerbsDevice device)
    {
        try
        {
            // the segment's own arena is out of reach; an arena that answers with its scope reaches the same
            // list of close actions
            MemorySegment.NULL.reinterpret(new ScopeOf(segment.scope()), new SendFence(device));
        }
        catch (final IllegalStateException | WrongThreadException ex)
        {
            throw new RdmaException(Errno.EINVAL, "the segment's arena closed while it was being registered");
        }
    }

    /**
     * The arena's close action: what is queued leaves now, while the memory is there.
     */
    @Override
    public void accept(final MemorySegment ignored)
    {
        device.flushSends();
    }

    /**
     * An arena that only names a scope: enough for {@code reinterpret} to add a close action to it.
     *
     * @param scope the scope of the registered segment.
     */
    private record ScopeOf(MemorySegment.Scope scope) implements Arena
    {
        @Override
        public MemorySegment allocate(final long byteSize, final long byteAlignment)
        {
            throw new UnsupportedOperationException("allocates nothing");
        }

        @Override
        public void close()
        {
            throw new UnsupportedOperationException("closes nothing");
        }
    }
}
