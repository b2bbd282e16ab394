package io.rdma4j.cm;

import io.rdma4j.spi.RdmaProvider;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The connection manager's rule for engines, with two fake providers: a "native" one claiming some addresses
 * and the fallback "soft" one. An id goes to the provider owning the address it is bound or resolved to, else
 * to the software device; with only one provider able to serve, the channel is that provider's own.
 */
class CmRoutingTest
{
    private static final int WAIT_SECONDS = 10;

    private static InetAddress ip(final String text) throws UnknownHostException
    {
        return InetAddress.getByName(text);
    }

    @Test
    void anIdBoundToAnAddressANativeDeviceOwnsUsesThatProvider() throws Exception
    {
        final FakeEngine nativeEngine = new FakeEngine("native", true, ip("10.77.0.12"));
        final FakeEngine soft = new FakeEngine("soft", true);
        final EventChannel channel = RdmaCm.createEventChannel(List.of(nativeEngine, soft));
        final CmId id = channel.createId("ctx", PortSpace.TCP);
        id.bindAddr(new InetSocketAddress(ip("10.77.0.12"), 0));

        assertEquals(1, nativeEngine.channels.size());
        final FakeEngine.FakeId engineId = nativeEngine.channels.getFirst().ids.getFirst();
        assertEquals(List.of("bind 10.77.0.12"), engineId.calls);
        assertEquals("ctx", engineId.context);
        assertEquals(PortSpace.TCP, engineId.portSpace);
        assertTrue(soft.channels.isEmpty(), "the software device was not asked");
        id.listen(1);
        assertEquals(List.of("bind 10.77.0.12", "listen"), engineId.calls);
    }

    @Test
    void anIdBoundToAnAddressNoDeviceOwnsUsesTheSoftwareDevice() throws Exception
    {
        final FakeEngine nativeEngine = new FakeEngine("native", true, ip("10.77.0.12"));
        final FakeEngine soft = new FakeEngine("soft", true);
        final EventChannel channel = RdmaCm.createEventChannel(List.of(nativeEngine, soft));
        channel.createId(null, PortSpace.UDP).bindAddr(new InetSocketAddress(ip("127.0.0.31"), 0));

        assertTrue(nativeEngine.channels.isEmpty());
        assertEquals(List.of("bind 127.0.0.31"), soft.channels.getFirst().ids.getFirst().calls);
    }

    @Test
    void aResolveWithoutSourceTakesTheEngineOfTheRoutesSourceAddress() throws Exception
    {
        // the host's route to 127.0.0.1 leaves from 127.0.0.1: the fake native device claims it
        final FakeEngine nativeEngine = new FakeEngine("native", true, ip("127.0.0.1"));
        final FakeEngine soft = new FakeEngine("soft", true);
        final EventChannel channel = RdmaCm.createEventChannel(List.of(nativeEngine, soft));
        final CmId viaRoute = channel.createId(null, PortSpace.TCP);
        viaRoute.resolveAddr(null, new InetSocketAddress(ip("127.0.0.1"), 7174), 1000);
        final CmId viaSource = channel.createId(null, PortSpace.TCP);
        viaSource.resolveAddr(new InetSocketAddress(ip("127.0.0.32"), 0),
            new InetSocketAddress(ip("127.0.0.1"), 7174), 1000);

        assertEquals(List.of("resolve 127.0.0.1"), nativeEngine.channels.getFirst().ids.getFirst().calls);
        assertEquals(List.of("resolve 127.0.0.1"), soft.channels.getFirst().ids.getFirst().calls,
            "a source no device owns goes to the software device");
    }

    @Test
    void eventsNameTheApplicationsIdsAndARequestsNewIdStaysOnItsEngine() throws Exception
    {
        final FakeEngine nativeEngine = new FakeEngine("native", true, ip("10.77.0.12"));
        final FakeEngine soft = new FakeEngine("soft", true);
        final EventChannel channel = RdmaCm.createEventChannel(List.of(nativeEngine, soft));
        final CmId listener = channel.createId("server", PortSpace.TCP);
        listener.bindAddr(new InetSocketAddress(ip("10.77.0.12"), 0));
        final CmId other = channel.createId("other", PortSpace.TCP);
        other.bindAddr(new InetSocketAddress(ip("127.0.0.33"), 0));
        final FakeEngine.FakeChannel nativeChannel = nativeEngine.channels.getFirst();
        final FakeEngine.FakeId engineListener = nativeChannel.ids.getFirst();

        final FakeEngine.FakeId request = nativeChannel.createId("server", PortSpace.TCP);
        nativeChannel.events.add(new FakeCmEvent(CmEventType.CONNECT_REQUEST, request, engineListener));
        final CmEvent event = channel.getEvent(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(CmEventType.CONNECT_REQUEST, event.type());
        assertSame(listener, event.listenId());
        assertEquals("server", event.id().context());
        event.id().accept(null);
        assertEquals(List.of("accept"), request.calls, "the request's id answers on the engine it came from");

        soft.channels.getFirst().events.add(new FakeCmEvent(CmEventType.ADDR_RESOLVED,
            soft.channels.getFirst().ids.getFirst(), null));
        assertSame(other, channel.getEvent(WAIT_SECONDS, TimeUnit.SECONDS).id(),
            "the second engine's events are waited for too");
        assertNull(channel.getEvent(1, TimeUnit.MILLISECONDS));
    }

    @Test
    void aNegativeTimeoutWaitsForTheEventOverSeveralEngines() throws Exception
    {
        final FakeEngine nativeEngine = new FakeEngine("native", true, ip("10.77.0.12"));
        final FakeEngine soft = new FakeEngine("soft", true);
        final EventChannel channel = RdmaCm.createEventChannel(List.of(nativeEngine, soft));
        final CmId id = channel.createId("late", PortSpace.TCP);
        id.bindAddr(new InetSocketAddress(ip("127.0.0.34"), 0));
        final FakeEngine.FakeChannel softChannel = soft.channels.getFirst();
        final CompletableFuture<CmEvent> got = new CompletableFuture<>();
        final Thread waiter = Thread.ofPlatform().daemon().start(() ->
        {
            try
            {
                got.complete(channel.getEvent(-1, TimeUnit.SECONDS));
            }
            catch (final InterruptedException | RuntimeException ex)
            {
                got.completeExceptionally(ex);
            }
        });

        // the waiter has gone through many 10 ms slices by now: it must still be waiting, not have given up
        Thread.sleep(200);
        assertFalse(got.isDone(), () -> "getEvent(-1) returned " + got.getNow(null) + " with no event queued");
        softChannel.events.add(new FakeCmEvent(CmEventType.ADDR_RESOLVED, softChannel.ids.getFirst(), null));
        assertSame(id, got.get(WAIT_SECONDS, TimeUnit.SECONDS).id());
        waiter.join();
    }

    @Test
    void withOnlyTheSoftwareDeviceAbleToServeTheChannelIsItsOwn() throws Exception
    {
        final FakeEngine noDevice = new FakeEngine("native", false, ip("10.77.0.12"));
        final FakeEngine soft = new FakeEngine("soft", true);
        final EventChannel channel = RdmaCm.createEventChannel(List.<RdmaProvider>of(noDevice, soft));
        assertInstanceOf(FakeEngine.FakeChannel.class, channel);
        assertSame(soft, ((FakeEngine.FakeChannel)channel).engine());
        assertTrue(noDevice.channels.isEmpty());
    }

    @Test
    void anIdWithoutAnEngineRefusesWhatNeedsADeviceAndTheChannelRefusesToCloseUnderIt() throws Exception
    {
        final FakeEngine nativeEngine = new FakeEngine("native", true, ip("10.77.0.12"));
        final FakeEngine soft = new FakeEngine("soft", true);
        final EventChannel channel = RdmaCm.createEventChannel(List.of(nativeEngine, soft));
        final CmId id = channel.createId(null, PortSpace.TCP);
        final RdmaException connect = assertThrows(RdmaException.class, () -> id.connect(null));
        assertEquals(Errno.EINVAL, connect.errno());
        assertNull(id.verbs());
        assertNull(channel.getEvent(1, TimeUnit.MILLISECONDS), "no engine yet, no event");

        final RdmaException busy = assertThrows(RdmaException.class, channel::close);
        assertEquals(Errno.EBUSY, busy.errno());
        id.bindAddr(new InetSocketAddress(ip("10.77.0.12"), 0));
        id.close();
        assertTrue(nativeEngine.channels.getFirst().ids.getFirst().closed);
        channel.close();
        assertTrue(nativeEngine.channels.getFirst().closed, "closing closes the engines' channels");
    }
}
