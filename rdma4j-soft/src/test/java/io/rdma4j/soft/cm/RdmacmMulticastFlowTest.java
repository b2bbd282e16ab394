package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.JoinFlags;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.UdParam;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The multicast flows of rdma-core's own rdma_cm tests (tests/test_rdmacm.py: the async multicast
 * traffic case, its extended-join variant, and the leave case): two members join a group, with
 * {@code rdma_join_multicast} or {@code rdma_join_multicast_ex} and FULLMEMBER; one sends a stream of
 * messages and the other receives every one, in order; both leave. The leave case then checks that
 * after a leave nothing arrives: a member that stayed receives what is sent next, the one that left
 * receives none of it.
 */
class RdmacmMulticastFlowTest
{
    /** rdma-core's tests send a few messages per flow; enough here to see order and completeness. */
    private static final int MESSAGES = 12;

    static Stream<Arguments> flows()
    {
        final List<Arguments> flows = new ArrayList<>();
        // IPv4 groups only: rdma_cm refuses IPv6 groups on RoCEv2 (ENOTSUPP), so no MEMORY6 flow
        for (final CmFabric.Kind kind : new CmFabric.Kind[] {CmFabric.Kind.MEMORY, CmFabric.Kind.UDP})
        {
            flows.add(Arguments.of(kind, false));
            flows.add(Arguments.of(kind, true));
        }
        return flows.stream();
    }

    private static CmId bound(final EventChannel channel, final CmFabric fabric, final int host)
    {
        final CmId id = channel.createId(null, PortSpace.UDP);
        id.bindAddr(fabric.socketAddress(host, 0));
        return id;
    }

    /** Join as rdma-core's test does, plain or extended, and take the join event's address vector. */
    private static UdParam join(final EventChannel channel, final CmId id, final InetSocketAddress group,
        final boolean extended) throws InterruptedException
    {
        if (extended)
        {
            id.joinMulticast(group, JoinFlags.FULLMEMBER, null);
        }
        else
        {
            id.joinMulticast(group, null);
        }
        final CmEvent joined = channel.expect(CmEventType.MULTICAST_JOIN, 10, TimeUnit.SECONDS);
        final UdParam ud = joined.udParam();
        joined.ack();
        return ud;
    }

    private static List<String> messages(final String prefix, final int count)
    {
        final List<String> texts = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            texts.add(prefix + i);
        }
        return texts;
    }

    @ParameterizedTest(name = "{0}, extended join {1}")
    @MethodSource("flows")
    void shouldCarryTrafficBetweenTwoMembersUntilTheyLeave(final CmFabric.Kind kind, final boolean extended)
        throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            fabric.device(2);
            final InetSocketAddress group = CmFabric.group();
            try (CmId passive = bound(channel, fabric, 1); CmId active = bound(channel, fabric, 2);
                 McEndpoint receiver = new McEndpoint(passive, true); McEndpoint sender = new McEndpoint(active, true))
            {
                join(channel, passive, group, extended);
                final UdParam target = join(channel, active, group, extended);
                receiver.postRecvs(McEndpoint.SLOTS - 1);

                final List<String> sent = messages("traffic ", MESSAGES);
                final List<String> received = new ArrayList<>();
                for (final String text : sent)
                {
                    sender.send(target, text);
                    received.addAll(receiver.receive(1, 10_000));
                    receiver.postRecvs(1);
                }
                assertEquals(sent, received, "every message, once, in order");

                passive.leaveMulticast(group);
                active.leaveMulticast(group);
                assertEquals(0, CmFabric.attached(passive.verbs(), group));
                assertEquals(0, CmFabric.joinCount(passive.verbs(), group.getAddress()));
            }
        }
    }

    @ParameterizedTest(name = "{0}, extended join {1}")
    @MethodSource("flows")
    void shouldDeliverNothingToAMemberThatLeft(final CmFabric.Kind kind, final boolean extended) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            fabric.device(2);
            fabric.device(3);
            final InetSocketAddress group = CmFabric.group();
            try (CmId leaver = bound(channel, fabric, 1); CmId stayer = bound(channel, fabric, 2);
                 CmId active = bound(channel, fabric, 3);
                 McEndpoint left = new McEndpoint(leaver, true); McEndpoint stays = new McEndpoint(stayer, true);
                 McEndpoint sender = new McEndpoint(active, true))
            {
                join(channel, leaver, group, extended);
                join(channel, stayer, group, extended);
                final UdParam target = join(channel, active, group, extended);
                left.postRecvs(McEndpoint.SLOTS - 1);
                stays.postRecvs(McEndpoint.SLOTS - 1);
                sender.send(target, "before");
                assertEquals(List.of("before"), left.receive(1, 10_000), "a member receives until it leaves");
                assertEquals(List.of("before"), stays.receive(1, 10_000));

                leaver.leaveMulticast(group);
                final List<String> after = messages("after ", 4);
                for (final String text : after)
                {
                    sender.send(target, text);
                }
                // the member that stayed got all of it, so it was sent and delivered; the one that left,
                // with receives still posted on its QP, got none
                assertEquals(after, stays.receive(after.size(), 10_000));
                assertEquals(List.of(), left.receivedSoFar(), "a member that left receives nothing sent to the group");

                stayer.leaveMulticast(group);
                active.leaveMulticast(group);
            }
        }
    }
}
