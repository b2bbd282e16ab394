package io.rdma4j.soft.wire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads classic libpcap files (Ethernet, Linux cooked v1 and v2 link types) and keeps the IPv4 UDP datagrams sent
 * to the RoCEv2 port, with the IP header fields the ICRC covers.
 */
public final class PcapReader
{
    static final int ROCE_V2_PORT = 4791;

    private static final int MAGIC_MICROS = 0xA1B2_C3D4;
    private static final int MAGIC_NANOS = 0xA1B2_3C4D;
    private static final int LINKTYPE_ETHERNET = 1;
    private static final int LINKTYPE_LINUX_SLL = 113;
    private static final int LINKTYPE_LINUX_SLL2 = 276;
    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86DD;
    private static final int IPV6_HEADER_LENGTH = 40;
    private static final int ETHERTYPE_VLAN = 0x8100;
    private static final int PROTOCOL_UDP = 17;

    /**
     * One RoCEv2 datagram from a capture.
     *
     * @param frame              the 1-based frame number in the file, as tshark counts.
     * @param sourceAddress      IPv4 source.
     * @param destinationAddress IPv4 destination.
     * @param ipId               IPv4 identification.
     * @param dontFragment       IPv4 DF flag.
     * @param tos                IPv4 TOS.
     * @param ttl                IPv4 TTL.
     * @param sourcePort         UDP source port.
     * @param destinationPort    UDP destination port.
     * @param udpChecksum        UDP checksum.
     * @param payload            the UDP payload: BTH to ICRC.
     */
    public record Datagram(
        int frame,
        int sourceAddress,
        int destinationAddress,
        int ipId,
        boolean dontFragment,
        int tos,
        int ttl,
        int sourcePort,
        int destinationPort,
        int udpChecksum,
        byte[] payload)
    {
    }

    /**
     * One RoCEv2 datagram over IPv6 from a capture.
     *
     * @param frame           the 1-based frame number in the file, as tshark counts.
     * @param sourceHigh      the first 8 bytes of the IPv6 source, big-endian.
     * @param sourceLow       its last 8 bytes.
     * @param destinationHigh the first 8 bytes of the IPv6 destination.
     * @param destinationLow  its last 8 bytes.
     * @param trafficClass    the traffic class.
     * @param flowLabel       the flow label.
     * @param hopLimit        the hop limit.
     * @param sourcePort      UDP source port.
     * @param destinationPort UDP destination port.
     * @param payload         the UDP payload: BTH to ICRC.
     */
    public record Datagram6(
        int frame,
        long sourceHigh,
        long sourceLow,
        long destinationHigh,
        long destinationLow,
        int trafficClass,
        int flowLabel,
        int hopLimit,
        int sourcePort,
        int destinationPort,
        byte[] payload)
    {
    }

    private PcapReader()
    {
    }

    /**
     * @param file a classic pcap file.
     * @return its RoCEv2 datagrams over IPv6 (no extension headers: RoCEv2 senders add none), in order.
     * @throws IOException if the file is no pcap or a frame's lengths disagree.
     */
    static List<Datagram6> readIpv6(final Path file) throws IOException
    {
        final List<Datagram6> datagrams = new ArrayList<>();
        forEachFrame(file, (b, linkType, start, length, frame) ->
        {
            final int[] ipAndType = network(b, linkType, start);
            final int ip = ipAndType[0];
            if (ipAndType[1] != ETHERTYPE_IPV6 || (b.get(ip) & 0xFF) >> 4 != 6 || (b.get(ip + 6) & 0xFF) != PROTOCOL_UDP)
            {
                return;
            }
            final int udp = ip + IPV6_HEADER_LENGTH;
            final int destinationPort = b.getShort(udp + 2) & 0xFFFF;
            if (destinationPort != ROCE_V2_PORT)
            {
                return;
            }
            final int udpLength = b.getShort(udp + 4) & 0xFFFF;
            if (udpLength != (b.getShort(ip + 4) & 0xFFFF) || udp + udpLength > start + length)
            {
                throw new IOException("frame " + frame + ": truncated or inconsistent lengths");
            }
            final byte[] payload = new byte[udpLength - 8];
            b.get(udp + 8, payload);
            final int first = b.getInt(ip);
            datagrams.add(new Datagram6(frame, b.getLong(ip + 8), b.getLong(ip + 16), b.getLong(ip + 24),
                b.getLong(ip + 32), (first >>> 20) & 0xFF, first & 0xFFFFF, b.get(ip + 7) & 0xFF,
                b.getShort(udp) & 0xFFFF, destinationPort, payload));
        });
        return datagrams;
    }

    private interface FrameVisitor
    {
        void visit(ByteBuffer frame, int linkType, int start, int length, int number) throws IOException;
    }

    private static void forEachFrame(final Path file, final FrameVisitor visitor) throws IOException
    {
        final ByteBuffer buffer = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        final int magic = buffer.getInt(0);
        if (magic != MAGIC_MICROS && magic != MAGIC_NANOS)
        {
            buffer.order(ByteOrder.BIG_ENDIAN);
            final int swapped = buffer.getInt(0);
            if (swapped != MAGIC_MICROS && swapped != MAGIC_NANOS)
            {
                throw new IOException(file + ": not a classic pcap file");
            }
        }
        final int linkType = buffer.getInt(20) & 0xFFFF;
        final ByteBuffer bigEndian = buffer.duplicate().order(ByteOrder.BIG_ENDIAN);
        int position = 24;
        int frame = 0;
        while (position + 16 <= buffer.limit())
        {
            final int capturedLength = buffer.getInt(position + 8);
            final int start = position + 16;
            position = start + capturedLength;
            frame++;
            visitor.visit(bigEndian, linkType, start, capturedLength, frame);
        }
    }

    /**
     * @return where the IP header starts and the frame's ethertype, for a link type this reader knows.
     */
    private static int[] network(final ByteBuffer b, final int linkType, final int start) throws IOException
    {
        return switch (linkType)
        {
            case LINKTYPE_ETHERNET ->
            {
                final int etherType = b.getShort(start + 12) & 0xFFFF;
                yield etherType == ETHERTYPE_VLAN ? new int[] {start + 18, b.getShort(start + 16) & 0xFFFF} :
                    new int[] {start + 14, etherType};
            }
            case LINKTYPE_LINUX_SLL -> new int[] {start + 16, b.getShort(start + 14) & 0xFFFF};
            case LINKTYPE_LINUX_SLL2 -> new int[] {start + 20, b.getShort(start) & 0xFFFF};
            default -> throw new IOException("unsupported link type " + linkType);
        };
    }

    static List<Datagram> read(final Path file) throws IOException
    {
        final ByteBuffer buffer = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        final int magic = buffer.getInt(0);
        if (magic != MAGIC_MICROS && magic != MAGIC_NANOS)
        {
            buffer.order(ByteOrder.BIG_ENDIAN);
            final int swapped = buffer.getInt(0);
            if (swapped != MAGIC_MICROS && swapped != MAGIC_NANOS)
            {
                throw new IOException(file + ": not a classic pcap file");
            }
        }
        final int linkType = buffer.getInt(20) & 0xFFFF;
        final List<Datagram> datagrams = new ArrayList<>();
        int position = 24;
        int frame = 0;
        while (position + 16 <= buffer.limit())
        {
            final int capturedLength = buffer.getInt(position + 8);
            final int start = position + 16;
            position = start + capturedLength;
            frame++;
            final Datagram datagram = decode(buffer, linkType, start, capturedLength, frame);
            if (null != datagram)
            {
                datagrams.add(datagram);
            }
        }
        return datagrams;
    }

    private static Datagram decode(
        final ByteBuffer frame, final int linkType, final int start, final int length, final int number)
        throws IOException
    {
        final ByteBuffer b = frame.duplicate().order(ByteOrder.BIG_ENDIAN);
        int ip;
        int etherType;
        switch (linkType)
        {
            case LINKTYPE_ETHERNET ->
            {
                ip = start + 14;
                etherType = b.getShort(start + 12) & 0xFFFF;
                if (etherType == ETHERTYPE_VLAN)
                {
                    etherType = b.getShort(start + 16) & 0xFFFF;
                    ip += 4;
                }
            }
            case LINKTYPE_LINUX_SLL ->
            {
                ip = start + 16;
                etherType = b.getShort(start + 14) & 0xFFFF;
            }
            case LINKTYPE_LINUX_SLL2 ->
            {
                ip = start + 20;
                etherType = b.getShort(start) & 0xFFFF;
            }
            default -> throw new IOException("unsupported link type " + linkType);
        }
        if (etherType != ETHERTYPE_IPV4 || (b.get(ip) & 0xFF) >> 4 != 4 || (b.get(ip + 9) & 0xFF) != PROTOCOL_UDP)
        {
            return null;
        }
        final int headerLength = (b.get(ip) & 0x0F) * 4;
        final int totalLength = b.getShort(ip + 2) & 0xFFFF;
        final int flags = b.getShort(ip + 6) & 0xFFFF;
        final int udp = ip + headerLength;
        final int destinationPort = b.getShort(udp + 2) & 0xFFFF;
        if (destinationPort != ROCE_V2_PORT)
        {
            return null;
        }
        final int udpLength = b.getShort(udp + 4) & 0xFFFF;
        if (udpLength != totalLength - headerLength || udp + udpLength > start + length)
        {
            throw new IOException("frame " + number + ": truncated or inconsistent lengths");
        }
        final byte[] payload = new byte[udpLength - 8];
        b.get(udp + 8, payload);
        return new Datagram(
            number,
            b.getInt(ip + 12),
            b.getInt(ip + 16),
            b.getShort(ip + 4) & 0xFFFF,
            (flags & 0x4000) != 0,
            b.get(ip + 1) & 0xFF,
            b.get(ip + 8) & 0xFF,
            b.getShort(udp) & 0xFFFF,
            destinationPort,
            b.getShort(udp + 6) & 0xFFFF,
            payload);
    }
}
