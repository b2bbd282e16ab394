package io.rdma4j.cm;

import io.rdma4j.verbs.WaitDriver;
import io.rdma4j.verbs.WaitSet;
import io.rdma4j.verbs.Waitable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The event channel over both engines in a {@link WaitSet}: the set's watcher reaches an engine's channel made
 * after the set took the routed one, its events end the set's wait for ever, and the native engine's descriptor
 * and driver are what the routed channel gives the set once that engine's channel exists.
 */
@Timeout(30)
class RoutedWaitSetTest
{
    @Test
    void anEnginesChannelMadeAfterTheSetTookTheRoutedOneWakesTheSet() throws Exception
    {
        final FakeEngine nativeEngine = new FakeEngine("native", true, InetAddress.getByName("10.77.0.12"));
        final FakeEngine soft = new FakeEngine("soft", true);
        final EventChannel routed = RdmaCm.createEventChannel(List.of(nativeEngine, soft));
        assertInstanceOf(RoutedEventChannel.class, routed);
        try (WaitSet set = WaitSet.create())
        {
            set.add(routed);
            final Waitable[] ready = new Waitable[2];
            assertEquals(0, set.await(ready, 0, TimeUnit.SECONDS), "no engine yet: nothing ready");

            final CmId id = routed.createId(null, PortSpace.TCP);
            id.bindAddr(new InetSocketAddress(InetAddress.getByName("10.77.0.12"), 0));
            final FakeEngine.FakeChannel engineChannel = nativeEngine.channels.getFirst();
            final FakeEngine.FakeId engineId = engineChannel.ids.getFirst();

            final CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() ->
            {
                try
                {
                    return set.await(ready, -1, TimeUnit.SECONDS);
                }
                catch (final InterruptedException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            engineChannel.post(new FakeCmEvent(CmEventType.ADDR_RESOLVED, engineId, null));

            assertEquals(1, waiter.get(20, TimeUnit.SECONDS));
            assertSame(routed, ready[0]);
            final CmEvent event = routed.getEvent(0, TimeUnit.SECONDS);
            assertEquals(CmEventType.ADDR_RESOLVED, event.type());
            assertSame(id, event.id(), "the routed id, not the engine's");
            event.ack();
            assertEquals(0, set.await(ready, 0, TimeUnit.SECONDS), "taken: no longer ready");
            set.remove(routed);
            assertNull(engineChannel.watcher, "leaving the set stops the engine's channel's watcher too");
            id.close();
        }
        routed.close();
    }

    @Test
    void theNativeEnginesDescriptorAndDriverAreTheRoutedChannels() throws Exception
    {
        final FakeEngine nativeEngine = new FakeEngine("native", true, InetAddress.getByName("10.77.0.12"));
        final FakeEngine soft = new FakeEngine("soft", true);
        final EventChannel routed = RdmaCm.createEventChannel(List.of(nativeEngine, soft));
        assertEquals(-1, routed.descriptor());
        assertNull(routed.waitDriver());

        // the software device's channel first, with no descriptor and no driver (its events come off the CM thread)
        final CmId softId = routed.createId(null, PortSpace.TCP);
        softId.bindAddr(new InetSocketAddress(InetAddress.getByName("127.0.0.31"), 0));
        assertEquals(-1, routed.descriptor());

        final WaitDriver driver = new WaitDriver()
        {
            @Override
            public int await(final Wait wait, final long timeoutNs)
            {
                return SATISFIED;
            }

            @Override
            public void stopSeeking(final Wait wait)
            {
            }

            @Override
            public void wakeReceiver(final Thread receiver)
            {
            }
        };
        final CmId nativeId = routed.createId(null, PortSpace.TCP);
        nativeId.bindAddr(new InetSocketAddress(InetAddress.getByName("10.77.0.12"), 0));
        final FakeEngine.FakeChannel nativeChannel = nativeEngine.channels.getFirst();
        nativeChannel.descriptor = 42;
        nativeChannel.driver = driver;
        assertEquals(42, routed.descriptor());
        assertSame(driver, routed.waitDriver());
        softId.close();
        nativeId.close();
        routed.close();
    }
}
