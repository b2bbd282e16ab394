package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.JoinFlags;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.cm.UdParam;
import io.rdma4j.soft.verbs.DeviceLimits;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.rdma4j.soft.cm.CmTestSupport.awaitAckWaiter;
import static io.rdma4j.soft.cm.CmTestSupport.boundId;
import static io.rdma4j.soft.cm.CmTestSupport.expect;
import static io.rdma4j.soft.cm.CmTestSupport.expectAndAck;
import static io.rdma4j.soft.cm.CmTestSupport.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The SPEC's "Joining through the connection manager", on the in-memory network and over UDP on
 * loopback.
 */
@Timeout(30)
class SoftCmMulticastTest
{
    @ParameterizedTest
    @EnumSource(value = CmFabric.Kind.class, names = {"MEMORY", "UDP"})
    void shouldJoinOnlyOnceBoundOrAddressResolved(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            final InetSocketAddress group = CmFabric.group();
            try (CmId bound = channel.createId("bound", PortSpace.UDP);
                CmId resolved = channel.createId("resolved", PortSpace.UDP))
            {
                final RdmaException idle = refused(Errno.EINVAL, () -> bound.joinMulticast(group, null));
                assertTrue(idle.getMessage().contains("IDLE"), idle.getMessage());

                bound.bindAddr(fabric.socketAddress(1, 0));
                bound.joinMulticast(group, "via bind");
                final CmEvent joined = expect(channel, CmEventType.MULTICAST_JOIN);
                assertEquals("via bind", joined.joinContext());
                joined.ack();

                resolved.resolveAddr(fabric.socketAddress(1, 0), group, 2000);
                expectAndAck(channel, CmEventType.ADDR_RESOLVED);
                assertEquals(group, resolved.peerAddress());
                resolved.joinMulticast(group, "via resolve");
                final CmEvent joinedToo = expect(channel, CmEventType.MULTICAST_JOIN);
                assertEquals("via resolve", joinedToo.joinContext());
                joinedToo.ack();

                // rdma_cm joins only in ADDR_BOUND or ADDR_RESOLVED, not once the route is resolved
                final CmId routed = channel.createId(null, PortSpace.UDP);
                routed.resolveAddr(fabric.socketAddress(1, 0), CmFabric.group(), 2000);
                expectAndAck(channel, CmEventType.ADDR_RESOLVED);
                routed.resolveRoute(2000);
                expectAndAck(channel, CmEventType.ROUTE_RESOLVED);
                final RdmaException late = refused(Errno.EINVAL, () -> routed.joinMulticast(CmFabric.group(), null));
                assertTrue(late.getMessage().contains("ROUTE_RESOLVED"), late.getMessage());
                routed.close();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = CmFabric.Kind.class, names = {"MEMORY", "UDP"})
    void shouldReportContextAddressVectorQpnAndQkeyInMulticastJoin(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            final InetSocketAddress group = CmFabric.group();
            try (CmId id = boundId(channel, fabric, 1, "id context"))
            {
                id.joinMulticast(group, JoinFlags.FULLMEMBER, "join context");
                final CmEvent event = expect(channel, CmEventType.MULTICAST_JOIN);
                assertEquals(0, event.status());
                assertSame(id, event.id());
                assertEquals("id context", event.id().context());
                assertEquals("join context", event.joinContext());
                assertEquals(group, event.multicastAddress());
                assertNull(event.listenId());
                assertNull(event.connParam());

                final UdParam ud = event.udParam();
                assertNull(ud.privateData());
                assertEquals(0xFFFFFF, ud.qpNum());
                assertEquals(RdmaCm.MULTICAST_QPN, ud.qpNum());
                assertEquals(0x01234567, ud.qkey());
                final AhAttr ah = ud.ahAttr();
                assertTrue(ah.isGlobal());
                assertEquals(Gid.parse("::ffff:" + group.getAddress().getHostAddress()), ah.grh().dgid());
                assertTrue(ah.grh().dgid().isIpv4Mapped());
                assertEquals(64, ah.grh().hopLimit());
                assertEquals(0, ah.grh().flowLabel());
                assertEquals(0, ah.grh().sgidIndex());
                assertEquals(0, ah.grh().trafficClass());
                assertEquals(0, ah.dlid());
                assertEquals(0, ah.sl());
                assertEquals(1, ah.portNum());
                event.ack();
                id.leaveMulticast(group);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = CmFabric.Kind.class, names = {"MEMORY", "UDP"})
    void shouldSendAndReceiveAsFullMembers(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            fabric.device(2);
            final InetSocketAddress group = CmFabric.group();
            try (CmId a = boundId(channel, fabric, 1, "a"); CmId b = boundId(channel, fabric, 2, "b"))
            {
                try (McEndpoint epA = new McEndpoint(a, true); McEndpoint epB = new McEndpoint(b, true))
                {
                    a.joinMulticast(group, "a");
                    b.joinMulticast(group, "b");
                    final CmEvent joinedA = expect(channel, CmEventType.MULTICAST_JOIN);
                    final CmEvent joinedB = expect(channel, CmEventType.MULTICAST_JOIN);
                    assertSame(a, joinedA.id());
                    assertSame(b, joinedB.id());
                    final UdParam target = joinedA.udParam();
                    joinedA.ack();
                    joinedB.ack();
                    assertEquals(1, CmFabric.joinCount(a.verbs(), group.getAddress()));
                    assertEquals(1, CmFabric.joinCount(b.verbs(), group.getAddress()));
                    assertEquals(1, CmFabric.attached(a.verbs(), group));
                    assertEquals(1, CmFabric.attached(b.verbs(), group));

                    epA.postRecvs(4);
                    epB.postRecvs(4);
                    epA.send(target, "from a");
                    assertEquals(List.of("from a"), epB.receive(1, 5000));
                    // a member receives its own message too
                    assertEquals(List.of("from a"), epA.receive(1, 5000));
                    epB.send(target, "from b");
                    assertEquals(List.of("from b"), epA.receive(1, 5000));
                    assertEquals(List.of("from b"), epB.receive(1, 5000));

                    a.leaveMulticast(group);
                    b.leaveMulticast(group);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = CmFabric.Kind.class, names = {"MEMORY", "UDP"})
    void shouldNeverReceiveAsSendOnlyMemberNorJoinTheIpGroup(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            fabric.device(2);
            final InetSocketAddress group = CmFabric.group();
            try (CmId sender = boundId(channel, fabric, 1, "sender"); CmId member = boundId(channel, fabric, 2, "member"))
            {
                try (McEndpoint epS = new McEndpoint(sender, true); McEndpoint epM = new McEndpoint(member, true))
                {
                    sender.joinMulticast(group, JoinFlags.SENDONLY_FULLMEMBER, "send only");
                    member.joinMulticast(group, JoinFlags.FULLMEMBER, "full");
                    final CmEvent sendOnly = expect(channel, CmEventType.MULTICAST_JOIN);
                    assertEquals("send only", sendOnly.joinContext());
                    final UdParam target = sendOnly.udParam();
                    assertEquals(RdmaCm.MULTICAST_QPN, target.qpNum());
                    sendOnly.ack();
                    expectAndAck(channel, CmEventType.MULTICAST_JOIN);

                    // no IGMP join and no attach for the send-only member, even though its id has a QP
                    assertEquals(0, CmFabric.joinCount(sender.verbs(), group.getAddress()));
                    assertEquals(0, CmFabric.attached(sender.verbs(), group));
                    assertEquals(1, CmFabric.joinCount(member.verbs(), group.getAddress()));
                    assertEquals(1, CmFabric.attached(member.verbs(), group));

                    epS.postRecvs(4);
                    epM.postRecvs(4);
                    epS.send(target, "from the sender");
                    assertEquals(List.of("from the sender"), epM.receive(1, 5000));
                    epM.send(target, "from the member");
                    // the member's own copy proves the message went out; the send-only member gets none
                    assertEquals(List.of("from the member"), epM.receive(1, 5000));
                    assertEquals(List.of(), epS.receive(1, 300));

                    sender.leaveMulticast(group);
                    assertEquals(0, CmFabric.joinCount(sender.verbs(), group.getAddress()));
                    assertEquals(1, CmFabric.joinCount(member.verbs(), group.getAddress()));
                    member.leaveMulticast(group);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = CmFabric.Kind.class, names = {"MEMORY", "UDP"})
    void shouldAttachTheIdsQpWhenTheJoinEventIsRetrieved(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            final InetSocketAddress group = CmFabric.group();
            try (CmId id = boundId(channel, fabric, 1, null); McEndpoint ep = new McEndpoint(id, true))
            {
                id.joinMulticast(group, null);
                // the IP join is done at once; the attach waits for the application to take the event
                assertEquals(1, CmFabric.joinCount(id.verbs(), group.getAddress()));
                assertEquals(0, CmFabric.attached(id.verbs(), group));
                final CmEvent joined = expect(channel, CmEventType.MULTICAST_JOIN);
                assertEquals(1, CmFabric.attached(id.verbs(), group));
                joined.ack();

                // attached, so its own message comes back
                ep.postRecvs(1);
                ep.send(joined.udParam(), "loop");
                assertEquals(List.of("loop"), ep.receive(1, 5000));
                id.leaveMulticast(group);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = CmFabric.Kind.class, names = {"MEMORY", "UDP"})
    void shouldLeaveTheAttachToTheApplicationWhenTheIdHasNoQp(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            fabric.device(2);
            final InetSocketAddress group = CmFabric.group();
            try (CmId receiver = boundId(channel, fabric, 1, null); CmId sender = boundId(channel, fabric, 2, null))
            {
                receiver.joinMulticast(group, "no qp");
                final CmEvent joined = expect(channel, CmEventType.MULTICAST_JOIN);
                final UdParam target = joined.udParam();
                joined.ack();
                try (McEndpoint own = new McEndpoint(receiver, false); McEndpoint tx = new McEndpoint(sender, true))
                {
                    assertNull(receiver.qp());
                    assertEquals(0, CmFabric.attached(receiver.verbs(), group));
                    own.qp.attachMulticast(target.ahAttr().grh().dgid(), 0);
                    assertEquals(1, CmFabric.attached(receiver.verbs(), group));
                    own.postRecvs(1);
                    sender.joinMulticast(group, JoinFlags.SENDONLY_FULLMEMBER, null);
                    expectAndAck(channel, CmEventType.MULTICAST_JOIN);
                    tx.send(target, "to the application's QP");
                    assertEquals(List.of("to the application's QP"), own.receive(1, 5000));

                    // the id has no QP, so leave detaches nothing: the application's attach is its own
                    receiver.leaveMulticast(group);
                    assertEquals(1, CmFabric.attached(receiver.verbs(), group));
                    own.qp.detachMulticast(target.ahAttr().grh().dgid(), 0);
                    sender.leaveMulticast(group);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = CmFabric.Kind.class, names = {"MEMORY", "UDP"})
    void shouldDetachAndLeaveTheIpGroupOnLeave(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            final InetSocketAddress group = CmFabric.group();
            try (CmId id = boundId(channel, fabric, 1, null); McEndpoint ep = new McEndpoint(id, true))
            {
                id.joinMulticast(group, null);
                expectAndAck(channel, CmEventType.MULTICAST_JOIN);
                assertEquals(1, CmFabric.attached(id.verbs(), group));
                assertEquals(1, CmFabric.joinCount(id.verbs(), group.getAddress()));

                refused(Errno.EADDRNOTAVAIL, () -> id.leaveMulticast(new InetSocketAddress(group.getAddress(), 7)));
                id.leaveMulticast(group);
                assertEquals(0, CmFabric.attached(id.verbs(), group));
                assertEquals(0, CmFabric.joinCount(id.verbs(), group.getAddress()));
                refused(Errno.EADDRNOTAVAIL, () -> id.leaveMulticast(group));

                // freed: the same group can be joined again
                id.joinMulticast(group, "again");
                final CmEvent again = expect(channel, CmEventType.MULTICAST_JOIN);
                assertEquals("again", again.joinContext());
                again.ack();
                assertEquals(1, CmFabric.attached(id.verbs(), group));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = CmFabric.Kind.class, names = {"MEMORY", "UDP"})
    void shouldNotReturnFromDestroyBeforeTheEventIsAcknowledged(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            final InetSocketAddress group = CmFabric.group();
            final CmId id = boundId(channel, fabric, 1, null);
            final InetAddress groupIp = group.getAddress();
            final var verbs = id.verbs();
            id.joinMulticast(group, null);
            final CmEvent joined = expect(channel, CmEventType.MULTICAST_JOIN);

            final CountDownLatch returned = new CountDownLatch(1);
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread destroyer = Thread.ofPlatform().start(() ->
            {
                try
                {
                    id.close();
                }
                catch (final Throwable ex)
                {
                    failure.set(ex);
                }
                returned.countDown();
            });
            awaitAckWaiter(channel);
            assertEquals(1, returned.getCount(), "destroy returned with an event not acknowledged");
            // the groups are left before the wait, as rdma_destroy_id does in the kernel first
            assertEquals(0, CmFabric.joinCount(verbs, groupIp));
            refused(Errno.EINVAL, () -> id.joinMulticast(CmFabric.group(), null));

            joined.ack();
            assertTrue(returned.await(10, TimeUnit.SECONDS));
            destroyer.join();
            assertNull(failure.get());
        }
    }

    @ParameterizedTest
    @EnumSource(value = CmFabric.Kind.class, names = {"MEMORY", "UDP"})
    void shouldNotReturnFromLeaveBeforeTheEventIsAcknowledged(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            final InetSocketAddress group = CmFabric.group();
            try (CmId id = boundId(channel, fabric, 1, null))
            {
                id.joinMulticast(group, null);
                final CmEvent joined = expect(channel, CmEventType.MULTICAST_JOIN);
                final CountDownLatch returned = new CountDownLatch(1);
                final Thread leaver = Thread.ofPlatform().start(() ->
                {
                    id.leaveMulticast(group);
                    returned.countDown();
                });
                awaitAckWaiter(channel);
                assertEquals(1, returned.getCount(), "leave returned with an event not acknowledged");
                joined.ack();
                assertTrue(returned.await(10, TimeUnit.SECONDS));
                leaver.join();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = CmFabric.Kind.class, names = {"MEMORY", "UDP"})
    void shouldInterruptADestroyWaitingForAcknowledgements(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            final io.rdma4j.soft.SoftDevice device = fabric.device(1);
            final CmId id = boundId(channel, fabric, 1, null);
            id.joinMulticast(CmFabric.group(), null);
            final CmEvent joined = expect(channel, CmEventType.MULTICAST_JOIN);
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread destroyer = Thread.ofPlatform().start(() ->
            {
                try
                {
                    id.close();
                }
                catch (final Throwable ex)
                {
                    failure.set(ex);
                }
            });
            awaitAckWaiter(channel);
            destroyer.interrupt();
            destroyer.join();
            assertEquals(Errno.EINTR, ((RdmaException)failure.get()).errno());
            // destroyed regardless: the device context is released (the channel closes without EBUSY below)
            assertNull(device.engineIfOpen());
            refused(Errno.EINVAL, () -> id.joinMulticast(CmFabric.group(), null));
            joined.ack();
        }
    }

    @ParameterizedTest
    @EnumSource(value = CmFabric.Kind.class, names = {"MEMORY", "UDP"})
    void shouldRefuseIpv6WildcardAndUnicastGroupsAndNonUdpIds(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            try (CmId id = boundId(channel, fabric, 1, null); CmId tcp = channel.createId(null, PortSpace.TCP))
            {
                final RdmaException v6 = refused(Errno.ENOTSUPP,
                    () -> id.joinMulticast(new InetSocketAddress(InetAddress.ofLiteral("ff0e::1234"), 0), null));
                assertEquals(524, v6.errnoCode());
                assertTrue(v6.getMessage().contains("IPv6"), v6.getMessage());
                refused(Errno.EINVAL, () -> id.joinMulticast(new InetSocketAddress("0.0.0.0", 0), null));
                refused(Errno.EINVAL, () -> id.joinMulticast(new InetSocketAddress(InetAddress.ofLiteral("::"), 0), null));
                refused(Errno.EINVAL, () -> id.joinMulticast(new InetSocketAddress("10.1.2.3", 0), null));

                tcp.bindAddr(fabric.socketAddress(1, 0));
                refused(Errno.EINVAL, () -> tcp.joinMulticast(CmFabric.group(), null));
                // nothing was queued by the refused joins
                assertNull(channel.getEvent(0, TimeUnit.SECONDS));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = CmFabric.Kind.class, names = {"MEMORY", "UDP"})
    void shouldRefuseJoiningOneGroupTwiceOnOneId(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            final InetSocketAddress group = CmFabric.group();
            try (CmId first = boundId(channel, fabric, 1, null); CmId second = boundId(channel, fabric, 1, null))
            {
                first.joinMulticast(group, null);
                refused(Errno.EADDRINUSE, () -> first.joinMulticast(group, JoinFlags.SENDONLY_FULLMEMBER, null));
                // another id on the device may: the IP join is counted
                second.joinMulticast(group, null);
                expectAndAck(channel, CmEventType.MULTICAST_JOIN);
                expectAndAck(channel, CmEventType.MULTICAST_JOIN);
                assertEquals(2, CmFabric.joinCount(first.verbs(), group.getAddress()));
                first.leaveMulticast(group);
                assertEquals(1, CmFabric.joinCount(first.verbs(), group.getAddress()));
                second.leaveMulticast(group);
                assertEquals(0, CmFabric.joinCount(first.verbs(), group.getAddress()));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = CmFabric.Kind.class, names = {"MEMORY", "UDP"})
    void shouldRefuseASecondAckOfOneEvent(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            try (CmId id = boundId(channel, fabric, 1, null))
            {
                id.joinMulticast(CmFabric.group(), null);
                final CmEvent joined = expect(channel, CmEventType.MULTICAST_JOIN);
                joined.ack();
                refused(Errno.EINVAL, joined::ack);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = CmFabric.Kind.class, names = {"MEMORY", "UDP"})
    void shouldDeliverEventsInTheOrderOfTheCalls(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            final List<InetSocketAddress> groups = List.of(CmFabric.group(), CmFabric.group(), CmFabric.group());
            try (CmId joiner = boundId(channel, fabric, 1, "joiner");
                CmId resolver = channel.createId("resolver", PortSpace.UDP))
            {
                resolver.resolveAddr(fabric.socketAddress(1, 0), groups.getFirst(), 2000);
                for (int i = 0; i < groups.size(); i++)
                {
                    joiner.joinMulticast(groups.get(i), i);
                }
                final CmEvent resolved = expect(channel, CmEventType.ADDR_RESOLVED);
                assertSame(resolver, resolved.id());
                resolved.ack();
                for (int i = 0; i < groups.size(); i++)
                {
                    final CmEvent joined = expect(channel, CmEventType.MULTICAST_JOIN);
                    assertEquals(i, joined.joinContext());
                    assertEquals(groups.get(i), joined.multicastAddress());
                    joined.ack();
                }
                resolver.resolveRoute(2000);
                expectAndAck(channel, CmEventType.ROUTE_RESOLVED);
                assertNull(channel.getEvent(0, TimeUnit.SECONDS));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = CmFabric.Kind.class, names = {"MEMORY", "UDP"})
    void shouldShowTheIdsUserContextInEveryEvent(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            final Object first = new Object();
            final Object second = new Object();
            final InetSocketAddress group = CmFabric.group();
            try (CmId id = channel.createId(first, PortSpace.UDP))
            {
                id.resolveAddr(fabric.socketAddress(1, 0), group, 2000);
                final CmEvent resolved = expect(channel, CmEventType.ADDR_RESOLVED);
                assertSame(first, resolved.id().context());
                resolved.ack();
                id.joinMulticast(group, "join");
                final CmEvent joined = expect(channel, CmEventType.MULTICAST_JOIN);
                assertSame(first, joined.id().context());
                joined.ack();

                id.context(second);
                id.resolveRoute(2000);
                final CmEvent routed = expect(channel, CmEventType.ROUTE_RESOLVED);
                assertSame(second, routed.id().context());
                routed.ack();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = CmFabric.Kind.class, names = {"MEMORY", "UDP"})
    void shouldTurnAFailedAutomaticAttachIntoMulticastError(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1, DeviceLimits.RXE.withMulticast(1, 1, 1));
            final InetSocketAddress fits = CmFabric.group();
            final InetSocketAddress beyond = CmFabric.group();
            try (CmId id = boundId(channel, fabric, 1, null); McEndpoint ep = new McEndpoint(id, true))
            {
                id.joinMulticast(fits, "fits");
                id.joinMulticast(beyond, "beyond");
                expectAndAck(channel, CmEventType.MULTICAST_JOIN);
                final CmEvent failed = expect(channel, CmEventType.MULTICAST_ERROR);
                assertEquals(-Errno.ENOMEM.code(), failed.status());
                assertEquals("beyond", failed.joinContext());
                assertEquals(beyond, failed.multicastAddress());
                failed.ack();
                assertEquals(1, CmFabric.attached(id.verbs(), fits));
                assertEquals(0, CmFabric.attached(id.verbs(), beyond));
                // the join stands until left, as librdmacm keeps it
                id.leaveMulticast(beyond);
                id.leaveMulticast(fits);
            }
        }
    }
}
