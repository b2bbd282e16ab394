package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.SentDatagram;
import io.rdma4j.soft.verbs.DeviceLimits;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.rdma4j.soft.TestVerbs.awaitAtLeast;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The seed's rules for ibv_attach_mcast / ibv_detach_mcast (SPEC "Multicast attach / detach"),
 * each on the in-memory network and over UDP on loopback.
 */
@Timeout(60)
class MulticastAttachTest
{
    private static final Gid GROUP = TestVerbs.group(1);
    private static final Gid OTHER_GROUP = TestVerbs.group(2);
    private static final int MCAST_QPN = 0xFFFFFF;

    /** SPEC: attach makes the QP receive a copy of every group message arriving at the port. */
    @ParameterizedTest
    @EnumSource(Fabric.Kind.class)
    void shouldReceiveEveryGroupMessageOnceAttachedAndJoined(final Fabric.Kind kind)
    {
        try (Fabric fabric = new Fabric(kind))
        {
            final UdEndpoint sender = new UdEndpoint(fabric.open());
            final UdEndpoint receiver = new UdEndpoint(fabric.open());
            receiver.qp.attachMulticast(GROUP, 0);
            receiver.joinFabric(GROUP);
            receiver.postRecvs(5);
            final AddressHandle ah = sender.ahTo(GROUP);
            for (int i = 0; i < 5; i++)
            {
                sender.send(ah, MCAST_QPN, UdEndpoint.QKEY, "m" + i, i);
            }
            final List<WorkCompletion> got = receiver.poll(5, 5000);
            assertEquals(5, got.size());
            for (int i = 0; i < 5; i++)
            {
                assertEquals("m" + i, receiver.text(got.get(i)));
                assertEquals(sender.qp.qpNum(), got.get(i).srcQp());
            }
        }
    }

    /** SPEC: attach affects only the local device: without a fabric join nothing arrives. */
    @ParameterizedTest
    @EnumSource(Fabric.Kind.class)
    void shouldReceiveNothingFromTheNetworkWithoutAFabricJoin(final Fabric.Kind kind)
    {
        try (Fabric fabric = new Fabric(kind))
        {
            final UdEndpoint sender = new UdEndpoint(fabric.open());
            final UdEndpoint receiver = new UdEndpoint(fabric.open());
            receiver.qp.attachMulticast(GROUP, 0);
            receiver.postRecvs(2);
            sender.send(sender.ahTo(GROUP), MCAST_QPN, UdEndpoint.QKEY, "group", 1);
            // a unicast marker sent after the group message: once it is in, the group message had its chance
            sender.send(sender.ahTo(receiver.gid()), receiver.qp.qpNum(), UdEndpoint.QKEY, "marker", 2);
            final List<WorkCompletion> got = receiver.poll(2, 3000);
            assertEquals(1, got.size());
            assertEquals("marker", receiver.text(got.getFirst()));
            assertEquals(1, receiver.counter(SoftCounter.RCVD_PKTS));
        }
    }

    /** SPEC: only UD QPs attach (EINVAL); a non-multicast GID is EINVAL. */
    @Test
    void shouldRefuseNonUdQpsAndNonMulticastGids()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final UdEndpoint ud = new UdEndpoint(fabric.open());
            for (final QpType type : new QpType[] {QpType.RC, QpType.UC})
            {
                final QueuePair qp = ud.pd.createQp(QpInitAttr.of(type, ud.cq, QpCap.of(4, 4)));
                final RdmaException ex = assertThrows(RdmaException.class, () -> qp.attachMulticast(GROUP, 0));
                assertEquals(Errno.EINVAL, ex.errno());
                assertTrue(ex.getMessage().contains("only UD QPs"), ex.getMessage());
                qp.close();
            }
            final RdmaException unicast = assertThrows(RdmaException.class,
                () -> ud.qp.attachMulticast(Gid.parse("10.1.2.3"), 0));
            assertEquals(Errno.EINVAL, unicast.errno());
            assertTrue(unicast.getMessage().contains("not a multicast GID"), unicast.getMessage());
            // first byte 0xFF is a multicast GID (IB and IPv6 style)
            ud.qp.attachMulticast(Gid.parse("ff0e::1234"), 0);
            ud.qp.detachMulticast(Gid.parse("ff0e::1234"), 0);
        }
    }

    /** SPEC: attaching twice succeeds and still gives one copy; one detach undoes it. */
    @ParameterizedTest
    @EnumSource(Fabric.Kind.class)
    void shouldGiveOneCopyAfterAttachingTwiceAndUndoWithOneDetach(final Fabric.Kind kind)
    {
        try (Fabric fabric = new Fabric(kind))
        {
            final UdEndpoint sender = new UdEndpoint(fabric.open());
            final UdEndpoint receiver = new UdEndpoint(fabric.open());
            receiver.qp.attachMulticast(GROUP, 0);
            receiver.qp.attachMulticast(GROUP, 0);
            assertEquals(1, engine(receiver).mcast().totalAttachments());
            receiver.joinFabric(GROUP);
            receiver.postRecvs(4);
            final AddressHandle ah = sender.ahTo(GROUP);
            sender.send(ah, MCAST_QPN, UdEndpoint.QKEY, "once", 1);
            awaitAtLeast(() -> receiver.counter(SoftCounter.MCAST_FANOUT), 1);
            final List<WorkCompletion> got = receiver.poll(2, 300);
            assertEquals(1, got.size());
            assertEquals(1, receiver.counter(SoftCounter.MCAST_FANOUT));

            receiver.qp.detachMulticast(GROUP, 0);
            assertEquals(0, engine(receiver).mcast().totalAttachments());
            sender.send(ah, MCAST_QPN, UdEndpoint.QKEY, "after detach", 2);
            awaitAtLeast(() -> receiver.counter(SoftCounter.DROP_NOT_A_MEMBER), 1);
            assertEquals(0, receiver.poll(1, 0).size());
            final RdmaException again = assertThrows(RdmaException.class,
                () -> receiver.qp.detachMulticast(GROUP, 0));
            assertEquals(Errno.EINVAL, again.errno());
        }
    }

    /** SPEC: one QP in several groups, several QPs in one group, each attached QP its own copy. */
    @ParameterizedTest
    @EnumSource(Fabric.Kind.class)
    void shouldGiveEveryAttachedQpItsOwnCopyInEveryGroup(final Fabric.Kind kind)
    {
        try (Fabric fabric = new Fabric(kind))
        {
            final UdEndpoint sender = new UdEndpoint(fabric.open());
            final var receiverContext = fabric.open();
            final UdEndpoint first = new UdEndpoint(receiverContext);
            final UdEndpoint second = new UdEndpoint(receiverContext);
            first.qp.attachMulticast(GROUP, 0);
            first.qp.attachMulticast(OTHER_GROUP, 0);
            second.qp.attachMulticast(GROUP, 0);
            first.joinFabric(GROUP);
            first.joinFabric(OTHER_GROUP);
            first.postRecvs(4);
            second.postRecvs(4);
            sender.send(sender.ahTo(GROUP), MCAST_QPN, UdEndpoint.QKEY, "to both", 1);
            sender.send(sender.ahTo(OTHER_GROUP), MCAST_QPN, UdEndpoint.QKEY, "to first", 2);
            final List<WorkCompletion> atFirst = first.poll(2, 5000);
            final List<WorkCompletion> atSecond = second.poll(1, 5000);
            assertEquals(List.of("to both", "to first"), atFirst.stream().map(first::text).sorted().toList());
            assertEquals("to both", second.text(atSecond.getFirst()));
            assertEquals(0, second.poll(1, 200).size());

            // detaching from one group leaves the QP's other group untouched
            first.qp.detachMulticast(GROUP, 0);
            sender.send(sender.ahTo(OTHER_GROUP), MCAST_QPN, UdEndpoint.QKEY, "still here", 3);
            assertEquals("still here", first.text(first.poll(1, 5000).getFirst()));
        }
    }

    /** SPEC: attach and detach are legal in every QP state. */
    @Test
    void shouldAttachAndDetachInEveryQpState()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final UdEndpoint ud = new UdEndpoint(fabric.open());
            final QueuePair qp = ud.pd.createQp(QpInitAttr.of(QpType.UD, ud.cq, QpCap.of(4, 4)));
            final QpAttr[] steps = {
                null,
                new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(1),
                new QpAttr().state(QpState.RTR),
                new QpAttr().state(QpState.RTS).sqPsn(0),
                new QpAttr().state(QpState.SQD),
                new QpAttr().state(QpState.ERR),
                new QpAttr().state(QpState.RESET) };
            for (final QpAttr step : steps)
            {
                if (step != null)
                {
                    qp.modify(step);
                }
                qp.attachMulticast(GROUP, 0);
                qp.detachMulticast(GROUP, 0);
            }
            assertEquals(QpState.RESET, qp.state());
        }
    }

    /** SPEC: max_mcast_grp 0 means no multicast (ENOSYS); each limit is ENOMEM and changes nothing. */
    @Test
    void shouldEnforceEachMulticastLimitWithoutChangingAnything()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final UdEndpoint none = new UdEndpoint(fabric.open(DeviceLimits.RXE.withMulticast(0, 0, 0)));
            assertEquals(0, none.context.queryDevice().maxMcastGrp());
            assertEquals(Errno.ENOSYS, assertThrows(RdmaException.class,
                () -> none.qp.attachMulticast(GROUP, 0)).errno());

            final var context = fabric.open(DeviceLimits.RXE.withMulticast(2, 2, 3));
            assertEquals(2, context.queryDevice().maxMcastGrp());
            assertEquals(2, context.queryDevice().maxMcastQpAttach());
            assertEquals(3, context.queryDevice().maxTotalMcastQpAttach());
            final UdEndpoint a = new UdEndpoint(context);
            final UdEndpoint b = new UdEndpoint(context);
            final UdEndpoint c = new UdEndpoint(context);
            a.qp.attachMulticast(GROUP, 0);
            b.qp.attachMulticast(GROUP, 0);
            final RdmaException perGroup = assertThrows(RdmaException.class, () -> c.qp.attachMulticast(GROUP, 0));
            assertEquals(Errno.ENOMEM, perGroup.errno());
            assertTrue(perGroup.getMessage().contains("max_mcast_qp_attach is 2"), perGroup.getMessage());
            a.qp.attachMulticast(OTHER_GROUP, 0);
            final RdmaException total = assertThrows(RdmaException.class, () -> b.qp.attachMulticast(OTHER_GROUP, 0));
            assertEquals(Errno.ENOMEM, total.errno());
            assertTrue(total.getMessage().contains("max_total_mcast_qp_attach is 3"), total.getMessage());
            final RdmaException groups = assertThrows(RdmaException.class,
                () -> c.qp.attachMulticast(TestVerbs.group(3), 0));
            assertEquals(Errno.ENOMEM, groups.errno());
            assertTrue(groups.getMessage().contains("max_mcast_grp is 2"), groups.getMessage());
            final SoftEngine engine = engine(a);
            assertEquals(2, engine.mcast().groupCount());
            assertEquals(3, engine.mcast().totalAttachments());
            assertTrue(!engine.mcast().hasGroup(TestVerbs.group(3)));
        }
    }

    /** The limits must be consistent: total at most groups × per group. */
    @Test
    void shouldRefuseLimitsWhoseTotalExceedsGroupsTimesPerGroup()
    {
        assertEquals(Errno.EINVAL, assertThrows(RdmaException.class,
            () -> DeviceLimits.RXE.withMulticast(2, 2, 5)).errno());
        assertEquals(8192, DeviceLimits.RXE.maxMcastGrp());
        assertEquals(56, DeviceLimits.RXE.maxMcastQpAttach());
        assertEquals(458752, DeviceLimits.RXE.maxTotalMcastQpAttach());
    }

    /** SPEC: a member that sends to its group receives its own message when it has a receive posted. */
    @ParameterizedTest
    @EnumSource(Fabric.Kind.class)
    void shouldLoopAMembersOwnMessageBackToIt(final Fabric.Kind kind)
    {
        try (Fabric fabric = new Fabric(kind))
        {
            final UdEndpoint member = new UdEndpoint(fabric.open());
            member.qp.attachMulticast(GROUP, 0);
            member.joinFabric(GROUP);
            final AddressHandle ah = member.ahTo(GROUP);
            member.send(ah, MCAST_QPN, UdEndpoint.QKEY, "dropped: no receive", 1);
            member.postRecvs(1);
            member.send(ah, MCAST_QPN, UdEndpoint.QKEY, "to myself", 2);
            final List<WorkCompletion> all = member.poll(4, 3000);
            final List<WorkCompletion> received = all.stream()
                .filter(wc -> wc.opcode() == io.rdma4j.verbs.WcOpcode.RECV).toList();
            assertEquals(1, received.size());
            assertEquals("to myself", member.text(received.getFirst()));
            assertEquals(member.qp.qpNum(), received.getFirst().srcQp());
            assertEquals(1, member.counter(SoftCounter.DROP_NO_RECV_WQE));
        }
    }

    /**
     * SPEC: the sender sends once; the network replicates to member ports; each device to each
     * attached QP. On RoCE the group is an IP multicast address and the LID is 0.
     */
    @Test
    void shouldSendOnceAndLetNetworkAndDevicesReplicate()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final List<SentDatagram> wire = new CopyOnWriteArrayList<>();
            fabric.network().tap(wire::add);
            final UdEndpoint sender = new UdEndpoint(fabric.open());
            final UdEndpoint[] members = new UdEndpoint[4];
            final var shared = fabric.open();
            members[0] = new UdEndpoint(fabric.open());
            members[1] = new UdEndpoint(fabric.open());
            members[2] = new UdEndpoint(shared);
            members[3] = new UdEndpoint(shared);
            for (final UdEndpoint m : members)
            {
                m.qp.attachMulticast(GROUP, 0);
                m.joinFabric(GROUP);
                m.postRecvs(1);
            }
            sender.send(sender.ahTo(GROUP), MCAST_QPN, UdEndpoint.QKEY, "fan-out", 1);
            for (final UdEndpoint m : members)
            {
                assertEquals("fan-out", m.text(m.poll(1, 5000).getFirst()));
            }
            assertEquals(1, wire.size());
            assertEquals(GROUP.toInet(), wire.getFirst().destination());
            assertEquals(0, sender.ahTo(GROUP).attr().dlid());
            assertEquals(2, members[2].counter(SoftCounter.MCAST_FANOUT));
        }
    }

    /** A member whose Q_Key differs is skipped; the others still get their copies. */
    @Test
    void shouldSkipMembersWithAnotherQkey()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final UdEndpoint sender = new UdEndpoint(fabric.open());
            final var context = fabric.open();
            final UdEndpoint right = new UdEndpoint(context);
            final UdEndpoint wrong = new UdEndpoint(context, context.allocPd(), 0x11111111);
            right.qp.attachMulticast(GROUP, 0);
            wrong.qp.attachMulticast(GROUP, 0);
            right.joinFabric(GROUP);
            right.postRecvs(1);
            wrong.postRecvs(1);
            sender.send(sender.ahTo(GROUP), MCAST_QPN, UdEndpoint.QKEY, "qkey", 1);
            assertEquals("qkey", right.text(right.poll(1, 5000).getFirst()));
            // the skipped copy is the member's to count; the device counted the datagram once, as received
            awaitAtLeast(() -> wrong.qp.counters().get(SoftCounter.DROP_QKEY_VIOLATION.counterName()), 1);
            assertEquals(0, right.counter(SoftCounter.DROP_QKEY_VIOLATION));
            assertEquals(0, wrong.poll(1, 0).size());
        }
    }

    /** Destroying a QP leaves its groups. */
    @Test
    void shouldLeaveGroupsWhenTheQpIsDestroyed()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final UdEndpoint ud = new UdEndpoint(fabric.open());
            ud.qp.attachMulticast(GROUP, 0);
            ud.qp.attachMulticast(OTHER_GROUP, 0);
            assertEquals(2, engine(ud).mcast().groupCount());
            ud.qp.close();
            assertEquals(0, engine(ud).mcast().groupCount());
            assertEquals(0, engine(ud).mcast().totalAttachments());
        }
    }

    private static SoftEngine engine(final UdEndpoint endpoint)
    {
        return SoftEngine.of(endpoint.context);
    }
}
