package io.rdma4j.rdmacore;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Binds one registration ({@code struct ibv_mr *}) to the life of the registered segment, so the device can never
 * reach memory the JVM has freed. The guard is a close action of the segment's own arena: an arena runs its close
 * actions newest first, and the guard is added after the segment was allocated, so closing the arena (or the
 * collector reclaiming an automatic one) deregisters the region before the memory goes. After
 * {@code ibv_dereg_mr} returns, the NIC no longer writes the pages: a remote access with the old rkey is a
 * remote access error and a work request with the old lkey a local protection error.
 * <p>
 * A confined arena is the exception (the JDK runs its first close action first, which frees its first
 * allocation before any later action), so such memory is refused before a guard is made. The guard holds the
 * {@code ibv_mr} pointer only, not the segment: once the region is deregistered it keeps nothing alive.
 */
final class MrGuard implements Consumer<MemorySegment>
{
    private final Consumer<MemorySegment> deregister;
    private MemorySegment mr;
    private boolean memoryGone;

    private MrGuard(final Consumer<MemorySegment> deregister)
    {
        this.deregister = deregister;
    }

    /**
     * @param segment    live shared, automatic or global memory.
     * @param deregister calls {@code ibv_dereg_mr} on a {@code struct ibv_mr *}, throwing on failure.
     * @return a guard on the segment's arena, with no region yet.
     * @throws RdmaException EINVAL when the arena closed meanwhile.
     */
    static MrGuard on(final MemorySegment segment, final Consumer<MemorySegment> deregister)
    {
        final MrGuard guard = new MrGuard(deregister);
        try
        {
            // the segment's own arena is out of reach; an arena that answers with its scope reaches the same
            // list of close actions (what the Arena documentation's delegating arenas rely on)
            MemorySegment.NULL.reinterpret(new ScopeOf(segment.scope()), guard);
        }
        catch (final IllegalStateException | WrongThreadException ex)
        {
            throw new RdmaException(Errno.EINVAL, "the segment's arena closed while it was being registered");
        }
        return guard;
    }

    /**
     * Register under the guard's lock, so an arena closing meanwhile waits for the registration to finish and
     * then deregisters it before the memory is freed.
     *
     * @param register calls {@code ibv_reg_mr}.
     * @return the {@code struct ibv_mr *}.
     * @throws RdmaException EINVAL when the arena closed before the registration began.
     */
    synchronized MemorySegment register(final Supplier<MemorySegment> register)
    {
        if (memoryGone)
        {
            throw new RdmaException(Errno.EINVAL, "the segment's arena closed while it was being registered");
        }
        mr = register.get();
        return mr;
    }

    /**
     * The application's deregistration; nothing when the arena's close already deregistered the region.
     */
    synchronized void deregister()
    {
        if (mr != null)
        {
            deregister.accept(mr);
            mr = null;
        }
    }

    /**
     * The arena's close action: deregister before the arena frees the memory.
     */
    @Override
    public synchronized void accept(final MemorySegment ignored)
    {
        memoryGone = true;
        if (mr != null)
        {
            final MemorySegment registered = mr;
            mr = null;
            // a failure here (a device already gone) is thrown out of Arena.close after the JDK's own actions
            deregister.accept(registered);
        }
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
