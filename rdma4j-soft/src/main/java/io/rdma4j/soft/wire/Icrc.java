package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * The RoCEv2 invariant CRC: CRC-32 (as {@link CRC32}) of 8 bytes of 0xFF standing for the masked IB local route
 * header, the IP header with its variant fields set to ones, the UDP header with its checksum set to ones, the BTH
 * with its FECN/BECN byte set to ones, and every following byte up to the ICRC. The CRC value is written
 * least-significant byte first in the last four bytes of the UDP payload. In an IPv4 header TOS, TTL and checksum
 * are masked; in an IPv6 header ({@link PacketInfo#ipv6()}) traffic class, flow label and hop limit are, which
 * leaves the version nibble, payload length, next header and the two addresses as sent.
 * <p>
 * The IPv4 header is rebuilt from its inputs: IHL 5, no options, protocol UDP, total length {@code 28 + length},
 * identification and DF as given, fragment offset 0. A receiver behind a UDP socket cannot see the sender's
 * identification, and Linux rxe sends non-zero ones, so {@link #check} can solve for it: CRC-32 is affine, so the
 * difference between the received ICRC and the one computed with identification 0 lies in the span of the 16
 * contributions of the identification's bits, which are independent, and elimination yields the one identification
 * that matches. The price is that a packet whose identification is unknown is protected by 16 bits, not 32.
 * <p>
 * An instance keeps scratch state and is used by one thread. Nothing is allocated per packet, provided the same
 * {@link MemorySegment} instance is passed from packet to packet (its {@link ByteBuffer} view is cached).
 */
public final class Icrc
{
    /** Length of the ICRC field. */
    public static final int LENGTH = 4;
    /** The identification argument of {@link #check} when the sender's IPv4 identification is not known. */
    public static final int UNKNOWN_IP_ID = -1;
    /** The smallest UDP payload an ICRC can cover: a BTH and the ICRC. */
    public static final int MIN_LENGTH = BthFlyweight.LENGTH + LENGTH;

    private static final int PREFIX_LENGTH = 8;
    private static final int IPV4_OFFSET = PREFIX_LENGTH;
    private static final int IPV4_LENGTH = 20;
    private static final int UDP_OFFSET = IPV4_OFFSET + IPV4_LENGTH;
    private static final int UDP_LENGTH = 8;
    private static final int BTH_OFFSET = UDP_OFFSET + UDP_LENGTH;
    private static final int HEADER_LENGTH = BTH_OFFSET + BthFlyweight.LENGTH;
    private static final int IPV6_OFFSET = PREFIX_LENGTH;
    private static final int IPV6_LENGTH = 40;
    private static final int UDP6_OFFSET = IPV6_OFFSET + IPV6_LENGTH;
    private static final int BTH6_OFFSET = UDP6_OFFSET + UDP_LENGTH;
    private static final int HEADER6_LENGTH = BTH6_OFFSET + BthFlyweight.LENGTH;
    /** Version 6, then traffic class and flow label all ones. */
    private static final int IPV6_MASKED_FIRST_WORD = 0x6FFF_FFFF;
    private static final int IP_ID_OFFSET = IPV4_OFFSET + 4;
    private static final int DONT_FRAGMENT = 0x4000;
    private static final int PROTOCOL_UDP = 17;
    private static final int COPY_CHUNK = 256;
    /**
     * Bytes after the BTH up to which a packet is copied whole beside its masked headers and hashed in one CRC
     * call: a small packet's cost is the calls' fixed part, not the bytes (53 against 37 ns for a 64-byte UD
     * SEND, two calls against one, on 2026-11-27's EPYC).
     */
    private static final int SMALL_REST = 256;
    /** The ICRC field as it lies in a packet: its four bytes least-significant first, unaligned. */
    public static final ValueLayout.OfInt LAYOUT = WireLayouts.ICRC;

    private final CRC32 crc = new CRC32();
    /** The masked headers, then a small packet's bytes after its BTH. */
    private final byte[] header = new byte[HEADER_LENGTH + SMALL_REST];
    private final ByteBuffer headerView = ByteBuffer.wrap(header).order(ByteOrder.BIG_ENDIAN);
    private final byte[] header6 = new byte[HEADER6_LENGTH + SMALL_REST];
    private final ByteBuffer header6View = ByteBuffer.wrap(header6).order(ByteOrder.BIG_ENDIAN);
    private byte[] chunk;

    /**
     * Views of the last two segments hashed, the newer first: a receiver hashes datagrams in its socket link's
     * slots and, between them, same-host records copied into its own buffer, and one view would be made again
     * at each change.
     */
    private MemorySegment viewedSegment;
    private ByteBuffer segmentView;
    private MemorySegment olderViewedSegment;
    private ByteBuffer olderSegmentView;
    /** A second view, for the payload a gathered packet reads in place, so the two views do not evict each other. */
    private MemorySegment viewedPayload;
    private ByteBuffer payloadView;

    /** Create an ICRC calculator for one thread. */
    public Icrc()
    {
        Arrays.fill(header, 0, PREFIX_LENGTH, (byte)0xFF);
        Arrays.fill(header6, 0, PREFIX_LENGTH, (byte)0xFF);
    }

    /**
     * Check the ICRC of a received packet against the addressing recorded in {@code packet}.
     *
     * @param segment memory holding the UDP payload.
     * @param offset  where the BTH starts.
     * @param length  the UDP payload's length, ICRC included.
     * @param packet  the datagram's addresses and ports (IPv4 or IPv6, see {@link PacketInfo#ipv6()}), and for IPv4
     *                its DF flag and its identification or {@link #UNKNOWN_IP_ID}, with then the one to try first
     *                ({@link PacketInfo#ipIdentificationGuess}): a right guess saves the solving.
     * @return the IPv4 identification for which the ICRC matches: the known one, or else the guessed or solved one;
     * 0 for a matching IPv6 packet; -1 when none matches or {@code length} is too short.
     */
    public int check(final MemorySegment segment, final long offset, final int length, final PacketInfo packet)
    {
        if (length < MIN_LENGTH)
        {
            return -1;
        }
        final int received = read(segment, offset, length);
        if (packet.ipv6())
        {
            return received == computeIpv6(segment, offset, length, packet) ? 0 : -1;
        }
        final int ipId = packet.ipIdentification();
        final int guess = ipId < 0 ? packet.ipIdentificationGuess() & 0xFFFF : ipId & 0xFFFF;
        final int computed = computeIpv4(segment, offset, length, packet, guess);
        if (computed == received)
        {
            return guess;
        }
        if (ipId >= 0)
        {
            return -1;
        }
        // the change is linear in the identification: what explains the difference from the guess, XOR the guess
        final int fromGuess = solveIpId(length, received ^ computed);
        return fromGuess < 0 ? -1 : fromGuess ^ guess;
    }

    /**
     * Compute the ICRC of a packet as its sender would and write it into the packet's last four bytes.
     *
     * @param segment memory holding the UDP payload.
     * @param offset  where the BTH starts.
     * @param length  the UDP payload's length, ICRC included; at least {@link #MIN_LENGTH}.
     * @param packet  the addresses, ports and, for IPv4, identification and DF the packet will be sent with.
     * @return the CRC value written.
     * @throws IllegalArgumentException if {@code length} is below {@link #MIN_LENGTH}.
     */
    public int generate(final MemorySegment segment, final long offset, final int length, final PacketInfo packet)
    {
        final int value = packet.ipv6() ? computeIpv6(segment, offset, length, packet) :
            computeIpv4(segment, offset, length, packet, packet.ipIdentification());
        segment.set(LAYOUT, offset + length - LENGTH, value);
        return value;
    }

    /**
     * Compute the ICRC of a packet held in two places, as a sender that reads the payload in place (from
     * registered memory) has it: the headers in {@code head}, the payload in {@code payload}, then
     * {@code pad} zero bytes and the ICRC itself.
     *
     * @param head          memory holding the headers, BTH first.
     * @param headOffset    where the BTH starts.
     * @param headLength    the headers' length, at least the BTH's.
     * @param payload       memory holding the payload.
     * @param payloadOffset where the payload starts.
     * @param payloadLength the payload's length.
     * @param pad           the pad bytes (zero) after the payload, 0..3.
     * @param srcIp         the IPv4 source address, most significant byte first.
     * @param dstIp         the IPv4 destination address.
     * @param srcPort       the UDP source port.
     * @param dstPort       the UDP destination port.
     * @param ipId          the IPv4 identification field, 0..65535.
     * @param dontFragment  the IPv4 DF flag.
     * @return the CRC value truncated to an int.
     */
    public int compute(
        final MemorySegment head,
        final long headOffset,
        final int headLength,
        final MemorySegment payload,
        final long payloadOffset,
        final int payloadLength,
        final int pad,
        final int srcIp,
        final int dstIp,
        final int srcPort,
        final int dstPort,
        final int ipId,
        final boolean dontFragment)
    {
        final int length = headLength + payloadLength + pad + LENGTH;
        checkLength(length);
        MemorySegment.copy(head, ValueLayout.JAVA_BYTE, headOffset, header, BTH_OFFSET, BthFlyweight.LENGTH);
        hashHeader(length, srcIp, dstIp, srcPort, dstPort, ipId, dontFragment, 0);
        hashRest(head, headOffset + BthFlyweight.LENGTH, headLength - BthFlyweight.LENGTH);
        if (payloadLength > 0)
        {
            if (payload != viewedPayload)
            {
                viewedPayload = payload;
                payloadView = canView(payload) ? payload.asByteBuffer() : null;
            }
            if (null != payloadView)
            {
                payloadView.limit((int)(payloadOffset + payloadLength)).position((int)payloadOffset);
                crc.update(payloadView);
            }
            else
            {
                hashRest(payload, payloadOffset, payloadLength);
            }
        }
        for (int i = 0; i < pad; i++)
        {
            crc.update(0);
        }
        return (int)crc.getValue();
    }

    /**
     * Read the ICRC a packet carries.
     *
     * @param segment memory holding the UDP payload.
     * @param offset  where the BTH starts.
     * @param length  the UDP payload's length, ICRC included.
     * @return the CRC value stored in the last four bytes.
     */
    public static int read(final MemorySegment segment, final long offset, final int length)
    {
        return segment.get(LAYOUT, offset + length - LENGTH);
    }

    private int computeIpv4(
        final MemorySegment segment, final long offset, final int length, final PacketInfo packet, final int ipId)
    {
        checkLength(length);
        final int rest = length - MIN_LENGTH;
        final int copied = rest <= SMALL_REST ? rest : 0;
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, header, BTH_OFFSET, BthFlyweight.LENGTH + copied);
        hashHeader(length, packet.sourceAddress(), packet.destinationAddress(), packet.sourcePort(),
            packet.destinationPort(), ipId, packet.dontFragment(), copied);
        if (copied != rest)
        {
            hashRest(segment, offset + BthFlyweight.LENGTH, rest);
        }
        return (int)crc.getValue();
    }

    /** IPv6 has no identification field, so nothing needs solving on receive. */
    private int computeIpv6(final MemorySegment segment, final long offset, final int length, final PacketInfo packet)
    {
        checkLength(length);
        final int rest = length - MIN_LENGTH;
        final int copied = rest <= SMALL_REST ? rest : 0;
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, header6, BTH6_OFFSET, BthFlyweight.LENGTH + copied);
        final ByteBuffer h = header6View;
        h.putInt(IPV6_OFFSET, IPV6_MASKED_FIRST_WORD);
        h.putShort(IPV6_OFFSET + 4, (short)(UDP_LENGTH + length));
        h.put(IPV6_OFFSET + 6, (byte)PROTOCOL_UDP);
        h.put(IPV6_OFFSET + 7, (byte)0xFF);
        h.putLong(IPV6_OFFSET + 8, packet.sourceHigh());
        h.putLong(IPV6_OFFSET + 16, packet.sourceLow());
        h.putLong(IPV6_OFFSET + 24, packet.destinationHigh());
        h.putLong(IPV6_OFFSET + 32, packet.destinationLow());
        h.putShort(UDP6_OFFSET, (short)packet.sourcePort());
        h.putShort(UDP6_OFFSET + 2, (short)packet.destinationPort());
        h.putShort(UDP6_OFFSET + 4, (short)(UDP_LENGTH + length));
        h.putShort(UDP6_OFFSET + 6, (short)0xFFFF);
        header6[BTH6_OFFSET + BthFlyweight.FECN_BECN_OFFSET] = (byte)0xFF;
        crc.reset();
        crc.update(header6, 0, HEADER6_LENGTH + copied);
        if (copied != rest)
        {
            hashRest(segment, offset + BthFlyweight.LENGTH, rest);
        }
        return (int)crc.getValue();
    }

    private static void checkLength(final int length)
    {
        if (length < MIN_LENGTH)
        {
            throw new IllegalArgumentException("length " + length + " < " + MIN_LENGTH);
        }
    }

    /**
     * Start the CRC over the masked headers, then {@code copied} bytes the caller put after the BTH. The words are
     * those of the IPv4 and UDP headers with their variant fields set to ones.
     */
    private void hashHeader(
        final int length,
        final int srcIp,
        final int dstIp,
        final int srcPort,
        final int dstPort,
        final int ipId,
        final boolean dontFragment,
        final int copied)
    {
        final ByteBuffer h = headerView;
        // version and IHL, TOS masked, total length
        h.putInt(IPV4_OFFSET, 0x45FF_0000 | (IPV4_LENGTH + UDP_LENGTH + length) & 0xFFFF);
        h.putInt(IP_ID_OFFSET, (ipId & 0xFFFF) << 16 | (dontFragment ? DONT_FRAGMENT : 0));
        // TTL masked, protocol, header checksum masked
        h.putInt(IPV4_OFFSET + 8, 0xFF00_FFFF | PROTOCOL_UDP << 16);
        h.putInt(IPV4_OFFSET + 12, srcIp);
        h.putInt(IPV4_OFFSET + 16, dstIp);
        h.putInt(UDP_OFFSET, (srcPort & 0xFFFF) << 16 | dstPort & 0xFFFF);
        // length, checksum masked
        h.putInt(UDP_OFFSET + 4, (UDP_LENGTH + length) << 16 | 0xFFFF);
        header[BTH_OFFSET + BthFlyweight.FECN_BECN_OFFSET] = (byte)0xFF;
        crc.reset();
        crc.update(header, 0, HEADER_LENGTH + copied);
    }

    private void hashRest(final MemorySegment segment, final long offset, final int count)
    {
        if (count == 0)
        {
            return;
        }
        final ByteBuffer view = viewOf(segment);
        if (null != view)
        {
            // ByteBuffer indexes are ints: the view exists only for segments of at most 2 GiB.
            view.limit((int)(offset + count)).position((int)offset);
            crc.update(view);
            return;
        }
        if (null == chunk)
        {
            chunk = new byte[COPY_CHUNK];
        }
        for (int done = 0; done < count; )
        {
            final int n = Math.min(COPY_CHUNK, count - done);
            MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset + done, chunk, 0, n);
            crc.update(chunk, 0, n);
            done += n;
        }
    }

    private ByteBuffer viewOf(final MemorySegment segment)
    {
        if (segment != viewedSegment)
        {
            final MemorySegment older = olderViewedSegment;
            final ByteBuffer olderView = olderSegmentView;
            olderViewedSegment = viewedSegment;
            olderSegmentView = segmentView;
            viewedSegment = segment;
            segmentView = segment == older ? olderView : canView(segment) ? segment.asByteBuffer() : null;
        }
        return segmentView;
    }

    private static boolean canView(final MemorySegment segment)
    {
        if (segment.byteSize() > Integer.MAX_VALUE)
        {
            return false;
        }
        return segment.isNative() || segment.heapBase().map(base -> base instanceof byte[]).orElse(false);
    }

    /**
     * How a packet's ICRC changes when the IPv4 identification it covers goes from 0 to {@code ipId}: the
     * ICRC is an affine function of its input, so the change depends on the identification and the length
     * only. A sender whose datagrams the kernel numbers after it built them (UDP segmentation offload numbers
     * the segments of one send 0, 1, 2 ...) XORs this into each stored ICRC.
     *
     * @param length the UDP payload's length, ICRC included.
     * @param ipId   the identification the packet will carry, 0..65535.
     * @return the value to XOR into the ICRC as {@link #read} returns it (and as it is stored).
     */
    public static int identificationChange(final int length, final int ipId)
    {
        return IpIdSolver.change(ipId & 0xFFFF, bytesAfterIdentification(length));
    }

    /**
     * {@link #identificationChange} for the identifications {@code first .. first + count - 1} of packets of
     * one length, the length's part computed once: what a sender renumbering a run of equal segments needs.
     *
     * @param length the UDP payload's length, ICRC included.
     * @param first  the first identification.
     * @param count  how many.
     * @param out    receives the changes, from index 0.
     */
    public static void identificationChanges(final int length, final int first, final int count, final int[] out)
    {
        IpIdSolver.changes(first, count, bytesAfterIdentification(length), out);
    }

    /**
     * Find the identification whose contribution to the CRC is {@code difference}, the received ICRC XOR the one
     * computed with identification 0, in a packet of {@code length} UDP payload bytes.
     */
    private static int solveIpId(final int length, final int difference)
    {
        return IpIdSolver.solve(difference, bytesAfterIdentification(length));
    }

    /** How many CRC input bytes follow the identification: they set what its bits do to the CRC. */
    private static long bytesAfterIdentification(final int length)
    {
        final long inputLength = HEADER_LENGTH + (long)length - BthFlyweight.LENGTH - LENGTH;
        return inputLength - IP_ID_OFFSET - 2;
    }
}
