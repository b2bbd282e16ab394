package io.rdma4j.rdmacore;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The guard's order against the JDK's own close actions, without a device: a segment whose close action records
 * "freed" stands for an arena's allocation (both are entries of the same list), and the deregistration records
 * "deregistered". Whatever closes the memory, the region is deregistered first, and exactly once.
 */
class MrGuardTest
{
    private static final MemorySegment IBV_MR = MemorySegment.ofAddress(0x1000);

    private final List<String> events = new CopyOnWriteArrayList<>();

    private MemorySegment memoryOf(final Arena arena)
    {
        return arena.allocate(64).reinterpret(arena, ignored -> events.add("freed"));
    }

    private MrGuard registered(final MemorySegment memory)
    {
        final MrGuard guard = MrGuard.on(memory, mr -> events.add("deregistered " + mr.address()));
        guard.register(() -> IBV_MR);
        return guard;
    }

    @Test
    void closingASharedArenaDeregistersBeforeItFrees()
    {
        final Arena arena = Arena.ofShared();
        registered(memoryOf(arena));
        arena.close();
        assertEquals(List.of("deregistered 4096", "freed"), events);
    }

    @Test
    void theApplicationsDeregistrationIsTheOnlyOneWhenItComesFirst()
    {
        final Arena arena = Arena.ofShared();
        final MrGuard guard = registered(memoryOf(arena));
        guard.deregister();
        arena.close();
        guard.deregister();
        assertEquals(List.of("deregistered 4096", "freed"), events);
    }

    @Test
    void anAutomaticArenasMemoryIsDeregisteredBeforeTheCollectorFreesIt() throws InterruptedException
    {
        final CountDownLatch freed = new CountDownLatch(1);
        registerAndForget(freed);
        for (int i = 0; i < 200 && freed.getCount() > 0; i++)
        {
            System.gc();
            freed.await(50, TimeUnit.MILLISECONDS);
        }
        assertEquals(0, freed.getCount(), "the collector never reclaimed the unreachable automatic arena");
        assertEquals(List.of("deregistered 4096", "freed"), events);
    }

    /** In a method of its own, so that no local of the test keeps the arena reachable. */
    private void registerAndForget(final CountDownLatch freed)
    {
        final Arena auto = Arena.ofAuto();
        final MemorySegment memory = auto.allocate(64).reinterpret(auto, ignored ->
        {
            events.add("freed");
            freed.countDown();
        });
        registered(memory);
    }

    @Test
    void anArenaClosedBeforeTheRegistrationFailsItWithEinval()
    {
        final Arena arena = Arena.ofShared();
        final MemorySegment memory = arena.allocate(64);
        final MrGuard guard = MrGuard.on(memory, mr -> events.add("deregistered"));
        arena.close();
        final RdmaException late = assertThrows(RdmaException.class, () -> guard.register(() -> IBV_MR));
        assertEquals(Errno.EINVAL, late.errno());
        final RdmaException closed = assertThrows(RdmaException.class,
            () -> MrGuard.on(memory, mr -> events.add("deregistered")));
        assertEquals(Errno.EINVAL, closed.errno());
        assertEquals(List.of(), events);
    }
}
