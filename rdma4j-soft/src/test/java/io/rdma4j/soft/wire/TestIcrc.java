package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The ICRC by explicit addresses and over ByteBuffers, as tests write packets: {@link Icrc} itself takes the
 * addressing as the device holds it, in a {@link PacketInfo}. Each call builds that PacketInfo, so these allocate.
 */
public final class TestIcrc
{
    private final Icrc icrc = new Icrc();

    /**
     * The IPv4 ICRC of a packet, which is left as it is.
     *
     * @return as {@link Icrc#generate}.
     */
    public int compute(
        final MemorySegment segment,
        final long offset,
        final int length,
        final int srcIp,
        final int dstIp,
        final int srcPort,
        final int dstPort,
        final int ipId,
        final boolean dontFragment)
    {
        return icrc.generate(copy(segment, offset, length), 0, length,
            ipv4(srcIp, dstIp, srcPort, dstPort, ipId, dontFragment));
    }

    /**
     * Write the IPv4 ICRC into the packet's last four bytes.
     *
     * @return as {@link Icrc#generate}.
     */
    public int generate(
        final MemorySegment segment,
        final long offset,
        final int length,
        final int srcIp,
        final int dstIp,
        final int srcPort,
        final int dstPort,
        final int ipId,
        final boolean dontFragment)
    {
        return icrc.generate(segment, offset, length, ipv4(srcIp, dstIp, srcPort, dstPort, ipId, dontFragment));
    }

    /**
     * Check a packet's IPv4 ICRC; {@code ipId} may be {@link Icrc#UNKNOWN_IP_ID}.
     *
     * @return as {@link Icrc#check}.
     */
    public int check(
        final MemorySegment segment,
        final long offset,
        final int length,
        final int srcIp,
        final int dstIp,
        final int srcPort,
        final int dstPort,
        final int ipId,
        final boolean dontFragment)
    {
        return icrc.check(segment, offset, length, ipv4(srcIp, dstIp, srcPort, dstPort, ipId, dontFragment));
    }

    /**
     * {@link #generate(MemorySegment, long, int, int, int, int, int, int, boolean)} at an absolute index of a
     * buffer, whose position, limit and byte order do not matter.
     *
     * @return as {@link Icrc#generate}.
     */
    public int generate(
        final ByteBuffer buffer,
        final int index,
        final int length,
        final int srcIp,
        final int dstIp,
        final int srcPort,
        final int dstPort,
        final int ipId,
        final boolean dontFragment)
    {
        return generate(upToLimit(buffer), index, length, srcIp, dstIp, srcPort, dstPort, ipId, dontFragment);
    }

    /**
     * {@link #check(MemorySegment, long, int, int, int, int, int, int, boolean)} at an absolute index of a buffer,
     * whose position, limit and byte order do not matter.
     *
     * @return as {@link Icrc#check}.
     */
    public int check(
        final ByteBuffer buffer,
        final int index,
        final int length,
        final int srcIp,
        final int dstIp,
        final int srcPort,
        final int dstPort,
        final int ipId,
        final boolean dontFragment)
    {
        return check(upToLimit(buffer), index, length, srcIp, dstIp, srcPort, dstPort, ipId, dontFragment);
    }

    /**
     * The IPv6 ICRC of a packet, which is left as it is; addresses are given as their big-endian halves.
     *
     * @return as {@link Icrc#generate}.
     */
    public int computeIpv6(
        final MemorySegment segment,
        final long offset,
        final int length,
        final long srcHigh,
        final long srcLow,
        final long dstHigh,
        final long dstLow,
        final int srcPort,
        final int dstPort)
    {
        return icrc.generate(copy(segment, offset, length), 0, length,
            new PacketInfo().networkIpv6(srcHigh, srcLow, srcPort, dstHigh, dstLow, dstPort));
    }

    /**
     * Write the IPv6 ICRC into the packet's last four bytes.
     *
     * @return as {@link Icrc#generate}.
     */
    public int generateIpv6(
        final MemorySegment segment,
        final long offset,
        final int length,
        final long srcHigh,
        final long srcLow,
        final long dstHigh,
        final long dstLow,
        final int srcPort,
        final int dstPort)
    {
        return icrc.generate(segment, offset, length,
            new PacketInfo().networkIpv6(srcHigh, srcLow, srcPort, dstHigh, dstLow, dstPort));
    }

    /**
     * Check a packet's IPv6 ICRC.
     *
     * @return true if it matches; false if not or the packet is too short.
     */
    public boolean checkIpv6(
        final MemorySegment segment,
        final long offset,
        final int length,
        final long srcHigh,
        final long srcLow,
        final long dstHigh,
        final long dstLow,
        final int srcPort,
        final int dstPort)
    {
        return 0 == icrc.check(segment, offset, length,
            new PacketInfo().networkIpv6(srcHigh, srcLow, srcPort, dstHigh, dstLow, dstPort));
    }

    private static PacketInfo ipv4(
        final int srcIp, final int dstIp, final int srcPort, final int dstPort, final int ipId,
        final boolean dontFragment)
    {
        return new PacketInfo().network(srcIp, srcPort, dstIp, dstPort, ipId).dontFragment(dontFragment);
    }

    /** Computing without writing is generating into a copy: the device never needs the one without the other. */
    private static MemorySegment copy(final MemorySegment segment, final long offset, final int length)
    {
        final MemorySegment copy = MemorySegment.ofArray(new byte[Math.max(0, length)]);
        MemorySegment.copy(segment, offset, copy, 0, Math.max(0, length));
        return copy;
    }

    /** The buffer from index 0 to its limit, so that absolute indexes stay offsets and the limit bounds the packet. */
    private static MemorySegment upToLimit(final ByteBuffer buffer)
    {
        return MemorySegment.ofBuffer(buffer.duplicate().clear().limit(buffer.limit()));
    }
}
