package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.soft.SoftDevice;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static io.rdma4j.soft.cm.CmTestSupport.expect;
import static io.rdma4j.soft.cm.CmTestSupport.expectAndAck;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The id and channel outside multicast: binding, resolution, QP creation, lifecycle, and the
 * honest refusal of connection establishment.
 */
@Timeout(30)
class SoftCmIdTest
{
    private static RdmaException refused(final Errno errno, final Executable call)
    {
        return CmTestSupport.refused(errno, call);
    }

    @Test
    void shouldBindPortsPerAddressAndPortSpace()
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            fabric.device(2);
            try (CmId first = channel.createId(null, PortSpace.UDP);
                CmId clash = channel.createId(null, PortSpace.UDP);
                CmId otherAddress = channel.createId(null, PortSpace.UDP);
                CmId otherSpace = channel.createId(null, PortSpace.TCP);
                CmId wildcard = channel.createId(null, PortSpace.UDP))
            {
                assertNull(first.verbs());
                assertNull(first.localAddress());
                first.bindAddr(fabric.socketAddress(1, 0));
                final int port = first.localAddress().getPort();
                assertTrue(port >= 32768 && port <= 60999, "ephemeral port " + port);
                assertEquals(fabric.address(1), first.localAddress().getAddress());
                assertEquals(fabric.address(1), ((SoftDevice)first.verbs().device()).address());
                refused(Errno.EINVAL, () -> first.bindAddr(fabric.socketAddress(1, 0)));

                refused(Errno.EADDRINUSE, () -> clash.bindAddr(fabric.socketAddress(1, port)));
                refused(Errno.EADDRINUSE, () -> wildcard.bindAddr(new InetSocketAddress(port)));
                otherAddress.bindAddr(fabric.socketAddress(2, port));
                otherSpace.bindAddr(fabric.socketAddress(1, port));
                assertEquals(port, otherSpace.localAddress().getPort());

                // TEST-NET-1 is neither this host's nor a registered device's
                refused(Errno.EADDRNOTAVAIL, () -> clash.bindAddr(new InetSocketAddress("192.0.2.1", 0)));
                first.close();
                clash.bindAddr(fabric.socketAddress(1, port));
                // the two ids on one device share its context
                assertSame(clash.verbs(), otherSpace.verbs());
            }
        }
    }

    @Test
    void shouldCreateUdQpsInRtsWithTheUdpQkeyAndConnectedQpsInInit()
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            try (CmId ud = channel.createId(null, PortSpace.UDP); CmId rc = channel.createId(null, PortSpace.TCP))
            {
                final QpInitAttr udInit = QpInitAttr.of(QpType.UD, null, new QpCap(4, 4, 1, 1, 0));
                refused(Errno.EINVAL, () -> ud.createQp(null, udInit));
                ud.bindAddr(fabric.socketAddress(1, 0));
                final CompletionQueue cq = ud.verbs().createCq(8, null, 0);
                final QueuePair udQp = ud.createQp(null, QpInitAttr.of(QpType.UD, cq, new QpCap(4, 4, 1, 1, 0)));
                assertSame(udQp, ud.qp());
                final QpAttr udAttr = udQp.query();
                assertEquals(QpState.RTS, udAttr.state());
                assertEquals(RdmaCm.UDP_QKEY, udAttr.qkey());
                assertEquals(0, udAttr.sqPsn());
                assertEquals(1, udAttr.portNum());
                refused(Errno.EINVAL, () -> ud.createQp(null, QpInitAttr.of(QpType.UD, cq, new QpCap(4, 4, 1, 1, 0))));

                rc.bindAddr(fabric.socketAddress(1, 0));
                refused(Errno.EINVAL, () -> rc.createQp(null, QpInitAttr.of(QpType.UD, cq, new QpCap(4, 4, 1, 1, 0))));
                final var pd = rc.verbs().allocPd();
                final QueuePair rcQp = rc.createQp(pd, QpInitAttr.of(QpType.RC, cq, new QpCap(4, 4, 1, 1, 0)));
                final QpAttr rcAttr = rcQp.query();
                assertEquals(QpState.INIT, rcAttr.state());
                assertEquals(AccessFlag.REMOTE_WRITE.bit() | AccessFlag.REMOTE_READ.bit() | AccessFlag.REMOTE_ATOMIC.bit(),
                    rcAttr.accessFlags(), "as Linux's CM grants an RC QP: a peer's atomics are no invalid request");
                assertSame(pd, rcQp.pd());

                ud.destroyQp();
                assertNull(ud.qp());
                refused(Errno.EINVAL, ud::destroyQp);
                rc.destroyQp();
                pd.close();
                cq.close();
            }
        }
    }

    @Test
    void shouldRefuseEveryVerbOnADestroyedId()
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            final CmId id = channel.createId("kept", PortSpace.UDP);
            id.close();
            id.close();
            assertEquals("kept", id.context());
            final InetSocketAddress group = CmFabric.group();
            final Executable[] verbs = {
                () -> id.bindAddr(fabric.socketAddress(1, 0)), () -> id.resolveAddr(null, group, 100),
                () -> id.resolveRoute(100), () -> id.joinMulticast(group, null), () -> id.leaveMulticast(group),
                () -> id.createQp(null, QpInitAttr.of(QpType.UD, null, new QpCap(1, 1, 1, 1, 0))), id::destroyQp,
                () -> id.listen(1), id::disconnect };
            for (final Executable verb : verbs)
            {
                final RdmaException ex = refused(Errno.EINVAL, verb);
                assertTrue(ex.getMessage().contains("destroyed"), ex.getMessage());
            }
        }
    }

    @Test
    void shouldRefuseToCloseAChannelWhileIdsExist() throws Exception
    {
        final EventChannel channel = CmTesting.channel();
        final CmId id = channel.createId(null, PortSpace.UDP);
        refused(Errno.EBUSY, channel::close);
        assertNull(channel.getEvent(0, TimeUnit.SECONDS));
        assertNull(channel.getEvent(20, TimeUnit.MILLISECONDS));
        id.close();
        channel.close();
        refused(Errno.EINVAL, () -> channel.createId(null, PortSpace.UDP));
        refused(Errno.EINVAL, () -> channel.getEvent(0, TimeUnit.SECONDS));
    }

    @Test
    void shouldWakeAWaitingGetEventWhenAnEventArrives() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            try (CmId id = channel.createId(null, PortSpace.UDP))
            {
                id.bindAddr(fabric.socketAddress(1, 0));
                final java.util.concurrent.CompletableFuture<CmEvent> waiter = java.util.concurrent.CompletableFuture
                    .supplyAsync(() ->
                    {
                        try
                        {
                            return channel.getEvent(-1, TimeUnit.SECONDS);
                        }
                        catch (final InterruptedException ex)
                        {
                            throw new IllegalStateException(ex);
                        }
                    });
                id.joinMulticast(CmFabric.group(), "woken");
                final CmEvent event = waiter.get(10, TimeUnit.SECONDS);
                assertEquals("woken", event.joinContext());
                event.ack();
            }
        }
    }

    @Test
    void shouldReportAddrErrorForAnIpv6DestinationAndStayBound() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            try (CmId id = channel.createId(null, PortSpace.UDP))
            {
                id.bindAddr(fabric.socketAddress(1, 0));
                id.resolveAddr(null, new InetSocketAddress(InetAddress.ofLiteral("ff0e::1"), 0), 1000);
                final CmEvent error = expect(channel, CmEventType.ADDR_ERROR);
                assertEquals(-Errno.ENETUNREACH.code(), error.status());
                error.ack();
                // back in ADDR_BOUND: it may still join
                id.joinMulticast(CmFabric.group(), null);
                expectAndAck(channel, CmEventType.MULTICAST_JOIN);
                refused(Errno.EINVAL, () -> id.resolveAddr(new InetSocketAddress("0.0.0.0", 0),
                    new InetSocketAddress(InetAddress.ofLiteral("ff0e::1"), 0), 1000));
            }
        }
    }

    @Test
    void shouldResolveWithoutASourceOnTheDestinationsDevice() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            try (CmId id = channel.createId(null, PortSpace.UDP))
            {
                id.resolveAddr(null, fabric.socketAddress(1, 7471), 1000);
                expectAndAck(channel, CmEventType.ADDR_RESOLVED);
                assertEquals(fabric.address(1), id.localAddress().getAddress());
                assertNotEquals(0, id.localAddress().getPort());
                assertEquals(fabric.address(1), ((SoftDevice)id.verbs().device()).address());
            }
        }
    }

    @Test
    void shouldMakeAUdpDeviceOnDemandForAnUnregisteredLoopbackAddress() throws Exception
    {
        final InetAddress address = TestNet.address(TestNet.nextSubnet(), 1);
        assertNull(CmTesting.manager().devices.registered(address));
        SoftDevice made = null;
        try (EventChannel channel = CmTesting.channel())
        {
            final InetSocketAddress group = CmFabric.group();
            try (CmId id = channel.createId(null, PortSpace.UDP))
            {
                id.bindAddr(new InetSocketAddress(address, 0));
                made = (SoftDevice)id.verbs().device();
                assertEquals(address, made.address());
                id.joinMulticast(group, null);
                expectAndAck(channel, CmEventType.MULTICAST_JOIN);
                assertEquals(1, CmFabric.joinCount(id.verbs(), group.getAddress()));
            }
            // the last id released the device's context, so its engine and UDP port are gone
            assertNull(made.engineIfOpen());
        }
        finally
        {
            if (made != null)
            {
                CmTesting.DEVICES.unregister(made);
            }
        }
    }
}
