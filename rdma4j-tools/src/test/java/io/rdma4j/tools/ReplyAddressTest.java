package io.rdma4j.tools;

import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.ReplyAddress;
import io.rdma4j.verbs.WcFlags;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The reply address udaddy's server builds from a receive, against the captured rxe0's GID table
 * (index 0 the link-local GID, index 1 the IPv4 address 10.77.0.11).
 */
class ReplyAddressTest
{
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final FakeRxeContext context = new FakeRxeContext();

    private static WorkCompletion received(final int flags)
    {
        return WorkCompletion.array(1)[0].set(1, WcStatus.SUCCESS, WcOpcode.RECV, 140, 0x11, 0x12, 0x13, flags, 0);
    }

    /**
     * The slot as rxe fills it for IPv4: twenty zero bytes, then the IPv4 header.
     */
    private static MemorySegment ipv4Grh(final Arena arena, final String source, final String destination)
    {
        final MemorySegment grh = arena.allocate(ReplyAddress.GRH_BYTES);
        grh.set(ValueLayout.JAVA_BYTE, 20, (byte)0x45);
        grh.set(ValueLayout.JAVA_BYTE, 21, (byte)0x28);
        grh.set(ValueLayout.JAVA_BYTE, 28, (byte)61);
        grh.set(ValueLayout.JAVA_BYTE, 29, (byte)17);
        grh.set(INT_BE, 32, Gid.parse(source).ipv4());
        grh.set(INT_BE, 36, Gid.parse(destination).ipv4());
        return grh;
    }

    @Test
    void shouldAnswerAnIpv4SenderFromTheGidItWroteTo()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final AhAttr attr = ReplyAddress.of(context, 1, received(WcFlags.GRH | WcFlags.WITH_IMM),
                ipv4Grh(arena, "10.77.0.12", "10.77.0.11"));

            assertEquals(Gid.parse("10.77.0.12"), attr.grh().dgid());
            assertEquals(1, attr.grh().sgidIndex());
            assertEquals(61, attr.grh().hopLimit());
            assertEquals(0x28, attr.grh().trafficClass());
            assertEquals(0, attr.grh().flowLabel());
            assertEquals(1, attr.portNum());
        }
    }

    @Test
    void shouldAnswerAnIpv6SenderFromTheGidItWroteTo()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment grh = arena.allocate(ReplyAddress.GRH_BYTES);
            grh.set(INT_BE, 0, 0x6 << 28 | 0x12 << 20 | 0xABCDE);
            grh.set(ValueLayout.JAVA_BYTE, 6, (byte)17);
            grh.set(ValueLayout.JAVA_BYTE, 7, (byte)9);
            MemorySegment.copy(Gid.parse("fe80::5054:ff:fe77:c").toBytes(), 0, grh, ValueLayout.JAVA_BYTE, 8, 16);
            MemorySegment.copy(Gid.parse("fe80::5054:ff:fe77:b").toBytes(), 0, grh, ValueLayout.JAVA_BYTE, 24, 16);

            final AhAttr attr = ReplyAddress.of(context, 1, received(WcFlags.GRH), grh);

            assertEquals(Gid.parse("fe80::5054:ff:fe77:c"), attr.grh().dgid());
            assertEquals(0, attr.grh().sgidIndex());
            assertEquals(9, attr.grh().hopLimit());
            assertEquals(0x12, attr.grh().trafficClass());
            assertEquals(0xABCDE, attr.grh().flowLabel());
        }
    }

    @Test
    void shouldRefuseWhatCannotBeAnsweredAsLibibverbsDoes()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final RdmaException noGrh = assertThrows(RdmaException.class,
                () -> ReplyAddress.of(context, 1, received(0), ipv4Grh(arena, "10.77.0.12", "10.77.0.11")));
            final RdmaException multicast = assertThrows(RdmaException.class,
                () -> ReplyAddress.of(context, 1, received(WcFlags.GRH), ipv4Grh(arena, "10.77.0.12", "239.1.1.1")));
            final RdmaException notOurs = assertThrows(RdmaException.class,
                () -> ReplyAddress.of(context, 1, received(WcFlags.GRH), ipv4Grh(arena, "10.77.0.12", "10.77.0.99")));

            assertEquals(Errno.EINVAL, noGrh.errno());
            assertEquals(Errno.EINVAL, multicast.errno());
            assertEquals(Errno.EINVAL, notOurs.errno());
        }
    }
}
