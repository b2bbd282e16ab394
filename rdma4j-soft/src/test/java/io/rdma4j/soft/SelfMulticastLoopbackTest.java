package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpCreateFlag;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code IBV_QP_CREATE_BLOCK_SELF_MCAST_LB}: a UD QP created with it does not get back the multicast
 * it sends, while other QPs of its device attached to the group, and other devices, still do.
 * The group 239.255.44.100 is this class's own.
 */
@Timeout(60)
class SelfMulticastLoopbackTest
{
    private static final Gid GROUP = TestVerbs.group(100);
    private static final int MCAST_QPN = 0xFFFFFF;

    /** Who got the group message, each endpoint's receive completions in arrival order. */
    private record Received(List<String> sender, List<String> sibling, List<String> remote)
    {
    }

    private static Received sendToTheGroup(final Fabric fabric, final QpCreateFlag... senderFlags)
    {
        final var senderDevice = fabric.open();
        final UdEndpoint sender = new UdEndpoint(senderDevice, senderFlags);
        final UdEndpoint sibling = new UdEndpoint(senderDevice);
        final UdEndpoint remote = new UdEndpoint(fabric.open());
        for (final UdEndpoint member : List.of(sender, sibling, remote))
        {
            member.qp.attachMulticast(GROUP, 0);
            member.joinFabric(GROUP);
            member.postRecvs(4);
        }
        final AddressHandle group = sender.ahTo(GROUP);
        sender.send(group, MCAST_QPN, UdEndpoint.QKEY, "to the group", 1);
        // a unicast marker to the sender itself, sent after: once it is in, the group message had its chance
        sender.send(sender.ahTo(sender.gid()), sender.qp.qpNum(), UdEndpoint.QKEY, "marker", 2);
        // the sender's CQ holds its two send completions and what it receives
        final int sends = 2;
        final int receives = senderFlags.length == 0 ? 2 : 1;
        return new Received(texts(sender, sends + receives), texts(sibling, 1), texts(remote, 1));
    }

    /**
     * @param completions how many completions to wait for on the endpoint's CQ (sends included).
     * @return the texts of the receive completions among them.
     */
    private static List<String> texts(final UdEndpoint endpoint, final int completions)
    {
        final List<WorkCompletion> got = endpoint.poll(completions, 10_000);
        got.forEach(wc -> assertTrue(wc.isSuccess(), wc.toString()));
        return got.stream().filter(wc -> wc.opcode() == WcOpcode.RECV).map(endpoint::text).toList();
    }

    @ParameterizedTest
    @EnumSource(Fabric.Kind.class)
    void shouldNotLoopAMulticastSendBackToTheQpThatSentItWhenBlocked(final Fabric.Kind kind)
    {
        try (Fabric fabric = new Fabric(kind))
        {
            final Received received = sendToTheGroup(fabric, QpCreateFlag.BLOCK_SELF_MCAST_LB);

            assertEquals(List.of("marker"), received.sender(), "the sender does not get its own group message");
            assertEquals(List.of("to the group"), received.sibling(), "another QP of the same device does");
            assertEquals(List.of("to the group"), received.remote(), "another device does");
        }
    }

    @ParameterizedTest
    @EnumSource(Fabric.Kind.class)
    void shouldLoopAMulticastSendBackToItsSenderByDefault(final Fabric.Kind kind)
    {
        try (Fabric fabric = new Fabric(kind))
        {
            final Received received = sendToTheGroup(fabric);

            assertEquals(List.of("to the group", "marker"), received.sender(), "a member gets its own message");
            assertEquals(List.of("to the group"), received.sibling());
            assertEquals(List.of("to the group"), received.remote());
        }
    }

    @ParameterizedTest
    @EnumSource(Fabric.Kind.class)
    void shouldPassEachLoopedBackCopyThroughTheReceiveChecksOnce(final Fabric.Kind kind)
    {
        try (Fabric fabric = new Fabric(kind))
        {
            final var device = fabric.open();
            final UdEndpoint sender = new UdEndpoint(device);
            final UdEndpoint sibling = new UdEndpoint(device);
            for (final UdEndpoint member : List.of(sender, sibling))
            {
                member.qp.attachMulticast(GROUP, 0);
                member.joinFabric(GROUP);
                member.postRecvs(4);
            }
            final AddressHandle group = sender.ahTo(GROUP);
            for (int i = 0; i < 3; i++)
            {
                sender.send(group, MCAST_QPN, UdEndpoint.QKEY, "copy " + i, i + 1);
            }

            assertEquals(List.of("copy 0", "copy 1", "copy 2"), texts(sibling, 3));
            assertEquals(List.of("copy 0", "copy 1", "copy 2"), texts(sender, 6));
            assertEquals(3, sender.counter(SoftCounter.MCAST_LOOPBACK));
            // one verdict per copy, as for a datagram from the network (the IP stack's echo is dropped as ours)
            assertEquals(3, sender.counter(SoftCounter.RCVD_PKTS), "each copy was received once, through every check");
            assertEquals(6, sender.counter(SoftCounter.MCAST_FANOUT), "and handed to both members");
        }
    }

    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"RC", "UC"})
    void shouldRefuseTheFlagOnConnectedQps(final QpType type)
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final UdEndpoint ud = new UdEndpoint(fabric.open());
            final QpInitAttr attr = QpInitAttr.of(type, ud.cq, QpCap.of(4, 4))
                .withCreateFlags(QpCreateFlag.BLOCK_SELF_MCAST_LB);

            final RdmaException ex = assertThrows(RdmaException.class, () -> ud.pd.createQp(attr));
            assertEquals(Errno.EINVAL, ex.errno());
            assertTrue(ex.getMessage().contains("BLOCK_SELF_MCAST_LB") && ex.getMessage().contains(type.name()),
                ex.getMessage());
        }
    }
}
