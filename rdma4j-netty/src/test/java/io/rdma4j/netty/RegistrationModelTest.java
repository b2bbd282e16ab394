package io.rdma4j.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.netty.example.RdmaEcho;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transport in Netty's registration model: a handle registered on a loop gets its CQ's completions as
 * {@link CqReady} events through {@code handle}; a cancelled registration with its CQ outstanding stays until the
 * CQ is released, and the release lets the device's hold go once; a loop's channels on one device share its
 * completion channel and memory, which go with the last of them; and a dispatch allocates nothing.
 */
@Timeout(60)
class RegistrationModelTest extends NettyTestBase
{
    private static final long WR_ID = 7;

    @Test
    void aRegisteredHandleGetsItsCqCompletionsThroughHandle() throws Exception
    {
        try (Rig rig = new Rig(net))
        {
            rig.flush();
            assertTrue(rig.handle.completion.await(10, TimeUnit.SECONDS), "the flushed receive reached handle()");
            assertSame(rig.rdma(), rig.handle.registrationSeen, "handle() was given its own registration");
            assertEquals(CqReady.Kind.NOTIFIED, rig.handle.firstKind, "the CQ's event came as a NOTIFIED CqReady");
            assertEquals(WcStatus.WR_FLUSH_ERR, rig.handle.status);
            assertEquals(WR_ID, rig.handle.wrId);
        }
    }

    @Test
    void aCancelledRegistrationStaysUntilItsCqIsReleasedAndLetsTheHoldGoOnce() throws Exception
    {
        try (Rig rig = new Rig(net))
        {
            assertTrue(rig.registration.cancel());
            // the cancel runs on the loop; a task after it sees its effect
            assertTrue(rig.onLoop(() -> rig.rdma().registered()), "with its CQ outstanding it stays registered");
            assertFalse(rig.registration.isValid());
            rig.flush();
            assertTrue(rig.handle.completion.await(10, TimeUnit.SECONDS),
                "a cancelled registration's CQ still reaches its handle");
            final AtomicInteger attempts = new AtomicInteger();
            final Context verbs = rig.verbs;
            final boolean releasedAtOnce = rig.onLoop(() ->
            {
                rig.rdma().release(() ->
                {
                    // the first attempt is refused, as a CQ close is EBUSY while an event is unacknowledged
                    if (attempts.incrementAndGet() == 1)
                    {
                        return false;
                    }
                    rig.closeCq();
                    rig.devices().releaseCompletionChannel(verbs);
                    return true;
                });
                return !rig.rdma().registered();
            });
            assertFalse(releasedAtOnce, "a release that must wait keeps the registration");
            assertTrue(rig.handle.unregistered.await(10, TimeUnit.SECONDS), "the retried release removed it");
            // a few more turns of the loop: nothing is released twice
            for (int i = 0; i < 3; i++)
            {
                rig.onLoop(() -> null);
            }
            assertEquals(2, attempts.get(), "the release was tried until it succeeded, then never again");
            assertEquals(1, rig.handle.unregisteredCalls.get(), "unregistered() came once");
            assertEquals(0, (int)rig.onLoop(() -> rig.devices().completionChannelHolds(verbs)),
                "the device's completion channel was let go");
        }
    }

    @Test
    void twoChannelsOnOneDeviceShareItsResourcesUntilTheLastGoes() throws Exception
    {
        final Channel server = net.server(new RdmaEcho.EchoHandler(), Map.of());
        final IoEventLoop loop = (IoEventLoop)net.group.next();
        final Bootstrap bootstrap = new Bootstrap().group(loop).channel(RdmaChannel.class)
            .handler(new ChannelInitializer<>()
            {
                @Override
                protected void initChannel(final Channel ch)
                {
                    // nothing read here
                }
            }).option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000);
        final InetSocketAddress target = (InetSocketAddress)server.localAddress();
        final RdmaChannel first = (RdmaChannel)bootstrap.connect(target, new InetSocketAddress(net.clientHost, 0))
            .sync().channel();
        final RdmaChannel second = (RdmaChannel)bootstrap.connect(target, new InetSocketAddress(net.clientHost, 0))
            .sync().channel();
        final LoopDevices devices = first.handler().devices();
        final Context verbs = onLoop(loop, () -> first.endpoint().id().verbs());
        assertSame(verbs, onLoop(loop, () -> second.endpoint().id().verbs()), "both on the client's device");
        assertSame(devices, second.handler().devices(), "both on one loop");
        assertNotSame(first.registration(), second.registration(), "a registration each");
        assertEquals(2, (int)onLoop(loop, () -> devices.completionChannelHolds(verbs)), "one channel, two holds");
        final DeviceMemory memory = onLoop(loop, () -> devices.memory(verbs));
        assertNotNull(memory, "one protection domain for both");

        first.close().sync();
        assertEquals(1, (int)untilOnLoop(loop, () -> devices.completionChannelHolds(verbs), 1));
        assertSame(memory, onLoop(loop, () -> devices.memory(verbs)), "the second still has the memory");

        second.close().sync();
        assertEquals(0, (int)untilOnLoop(loop, () -> devices.completionChannelHolds(verbs), 0),
            "the last one let the completion channel go");
        assertEquals(null, onLoop(loop, () -> devices.memory(verbs)), "and the memory");
        server.close().sync();
    }

    @Test
    void dispatchingToAChannelAllocatesNothing() throws Exception
    {
        final Channel server = net.server(new RdmaEcho.EchoHandler(), Map.of());
        final RdmaChannel client = (RdmaChannel)net.connect((InetSocketAddress)server.localAddress(),
            new Collector(0)).sync().channel();
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long allocated = onLoop(client.eventLoop(), () ->
        {
            final RdmaIoRegistration registration = client.registration();
            // warm: the first calls may load classes and compile
            for (int i = 0; i < 20_000; i++)
            {
                registration.dispatch(CqReady.Kind.POLLED);
                registration.dispatch(CqReady.Kind.NOTIFIED);
            }
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 10_000; i++)
            {
                registration.dispatch(CqReady.Kind.POLLED);
                registration.dispatch(CqReady.Kind.NOTIFIED);
            }
            return threads.getCurrentThreadAllocatedBytes() - before;
        });
        // an object per dispatch would be 320 kB or more; a few stray bytes (the soft device's own receive path,
        // which a busy poll runs, now and then) are not the dispatch's
        assertTrue(allocated < 20_000, "20 000 dispatches to an idle channel allocated " + allocated +
            " bytes: more than one a dispatch");
        client.close().sync();
        server.close().sync();
    }

    private static <T> T onLoop(final io.netty.channel.EventLoop loop, final Callable<T> task) throws Exception
    {
        return loop.submit(task).get(10, TimeUnit.SECONDS);
    }

    /**
     * Ask the loop until it answers {@code expected} (a channel's close lets its endpoint go on a later turn),
     * for at most 10 s.
     */
    private static <T> T untilOnLoop(final io.netty.channel.EventLoop loop, final Callable<T> task, final T expected)
        throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        T value = onLoop(loop, task);
        while (!expected.equals(value) && System.nanoTime() < deadline)
        {
            value = onLoop(loop, task);
        }
        return value;
    }

    /**
     * A handle of the test's own on an rdma4j loop, with a UD QP whose CQ is on the loop's completion channel and
     * submitted to the handle's registration; {@link #flush} moves the QP to the error state, which flushes its
     * one posted receive into a completion.
     */
    private static final class Rig implements AutoCloseable
    {
        final IoEventLoop loop;
        final RecordingHandle handle = new RecordingHandle();
        final IoRegistration registration;
        final Context verbs;
        private final EventChannel events = RdmaCm.createEventChannel();
        private final Arena arena = Arena.ofShared();
        private final CmId id;
        private final ProtectionDomain pd;
        private final CompletionQueue cq;
        private final QueuePair qp;
        private final MemoryRegion mr;
        private boolean cqClosed;
        private boolean holdGiven;

        Rig(final NettyFixture net) throws Exception
        {
            loop = (IoEventLoop)net.group.next();
            registration = loop.register(handle).get(10, TimeUnit.SECONDS);
            id = events.createId(null, PortSpace.UDP);
            id.bindAddr(new InetSocketAddress(net.clientHost, 0));
            verbs = id.verbs();
            pd = verbs.allocPd();
            mr = pd.regMr(arena.allocate(4096), EnumSet.of(AccessFlag.LOCAL_WRITE));
            cq = onLoop(() ->
            {
                final CompletionChannel channel = devices().holdCompletionChannel(verbs);
                final CompletionQueue made = verbs.createCq(4, channel, 0);
                made.requestNotify(false);
                rdma().submit(RdmaIoOps.completions(made));
                return made;
            });
            handle.cq = cq;
            qp = id.createQp(pd, QpInitAttr.of(QpType.UD, cq, QpCap.of(1, 1)));
            qp.postRecv(new RecvWr().wrId(WR_ID).sge(mr, 0, 4096));
        }

        RdmaIoRegistration rdma()
        {
            return registration.attachment();
        }

        LoopDevices devices()
        {
            return rdma().handler().devices();
        }

        void flush()
        {
            qp.modify(new QpAttr().state(QpState.ERR));
        }

        /** On the loop. */
        void closeCq()
        {
            id.destroyQp();
            cq.close();
            cqClosed = true;
            holdGiven = true;
        }

        <T> T onLoop(final Callable<T> task) throws Exception
        {
            return RegistrationModelTest.onLoop(loop, task);
        }

        @Override
        public void close() throws Exception
        {
            onLoop(() ->
            {
                if (!cqClosed)
                {
                    if (rdma().cq() != null)
                    {
                        rdma().release(() -> true);
                    }
                    id.destroyQp();
                    cq.close();
                }
                if (!holdGiven)
                {
                    devices().releaseCompletionChannel(verbs);
                }
                return null;
            });
            registration.cancel();
            mr.close();
            pd.close();
            id.close();
            events.close();
            arena.close();
        }
    }

    /** Takes its CQ's completions in {@code handle}, noting the first, and counts {@code unregistered()}. */
    private static final class RecordingHandle implements RdmaIoHandle
    {
        final CountDownLatch completion = new CountDownLatch(1);
        final CountDownLatch unregistered = new CountDownLatch(1);
        final AtomicInteger unregisteredCalls = new AtomicInteger();
        final WorkCompletion[] wcs = WorkCompletion.array(4);
        volatile CompletionQueue cq;
        volatile IoRegistration registrationSeen;
        volatile CqReady.Kind firstKind;
        volatile WcStatus status;
        volatile long wrId;

        @Override
        public void handle(final IoRegistration registration, final IoEvent event)
        {
            if (!(event instanceof CqReady ready) || ready.kind() == CqReady.Kind.EXPIRED)
            {
                return;
            }
            if (ready.kind() == CqReady.Kind.NOTIFIED)
            {
                cq.requestNotify(false);
            }
            final int n = cq.poll(wcs);
            if (n > 0 && completion.getCount() > 0)
            {
                registrationSeen = registration;
                firstKind = ready.kind();
                status = wcs[0].status();
                wrId = wcs[0].wrId();
                completion.countDown();
            }
            if (n > 0)
            {
                ready.found();
            }
        }

        @Override
        public void unregistered()
        {
            unregisteredCalls.incrementAndGet();
            unregistered.countDown();
        }

        @Override
        public void closeNow()
        {
            // nothing of its own to close
        }
    }
}
