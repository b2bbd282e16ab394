package io.rdma4j.cm;

import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The teardown order does not depend on the order resources were added in, every resource is closed even
 * when one fails, and the first failure is the one thrown.
 */
class ResourcesTest
{
    private final List<String> closed = new ArrayList<>();

    @Test
    void shouldCloseChildrenBeforeParentsWhateverTheOrderTheyWereAddedIn()
    {
        try (Resources resources = new Resources())
        {
            resources.add(fake(Context.class, "context", null));
            resources.add(fake(EventChannel.class, "channel", null));
            resources.add(fake(ProtectionDomain.class, "pd", null));
            resources.add(fake(CmId.class, "id", null));
            resources.add(fake(CompletionChannel.class, "cc", null));
            resources.add(fake(CompletionQueue.class, "cq", null));
            resources.add(fake(MemoryRegion.class, "mr1", null));
            resources.add(fake(MemoryRegion.class, "mr2", null));
            final CmId accepted = fake(CmId.class, "accepted", null);
            assertSame(accepted, resources.add(accepted), "add gives the resource back");
        }
        assertEquals(List.of("destroyQp accepted", "destroyQp id", "mr2", "mr1", "cq", "cc", "pd", "accepted", "id",
            "channel", "context"), closed);
    }

    @Test
    void shouldCloseEverythingAndThrowTheFirstFailureWithTheOthersSuppressed()
    {
        final RdmaException busy = new RdmaException(Errno.EBUSY, "cq busy");
        final RdmaException inval = new RdmaException(Errno.EINVAL, "pd bad");
        final Resources resources = new Resources();
        resources.add(fake(ProtectionDomain.class, "pd", inval));
        resources.add(fake(CompletionQueue.class, "cq", busy));
        resources.add(fake(QueuePair.class, "qp", null));
        final RdmaException thrown = assertThrows(RdmaException.class, resources::close);
        assertSame(busy, thrown);
        assertArrayEquals(new Throwable[] {inval}, thrown.getSuppressed());
        assertEquals(List.of("qp", "cq", "pd"), closed);
        resources.close();
        assertEquals(3, closed.size(), "a second close does nothing");
        assertThrows(IllegalStateException.class, () -> resources.add(fake(QueuePair.class, "late", null)));
    }

    @Test
    void shouldLeaveTheBodysExceptionPrimaryInATryWithResources()
    {
        final IllegalArgumentException body = assertThrows(IllegalArgumentException.class, () ->
        {
            try (Resources resources = new Resources())
            {
                resources.add(fake(CompletionQueue.class, "cq", new RdmaException(Errno.EBUSY, "cq busy")));
                throw new IllegalArgumentException("the real error");
            }
        });
        assertEquals("the real error", body.getMessage());
        assertEquals(1, body.getSuppressed().length);
        assertEquals(List.of("cq"), closed);
    }

    /** A resource whose close (and, for an id, destroyQp) is recorded, and throws {@code failure} if given. */
    private <T> T fake(final Class<T> type, final String name, final RuntimeException failure)
    {
        final boolean[] hasQp = {true};
        return type.cast(Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type},
            (proxy, method, args) -> switch (method.getName())
            {
                case "close" ->
                {
                    closed.add(name);
                    if (failure != null)
                    {
                        throw failure;
                    }
                    yield null;
                }
                case "destroyQp" ->
                {
                    closed.add("destroyQp " + name);
                    hasQp[0] = false;
                    yield null;
                }
                case "qp" -> hasQp[0] ? fake(QueuePair.class, name + "'s qp", null) : null;
                case "toString" -> name;
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> throw new UnsupportedOperationException(method.getName());
            }));
    }
}
