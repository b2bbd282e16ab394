package io.rdma4j.verbs;


import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The address vector back to the sender of a UD message, as {@code ibv_init_ah_from_wc} builds
 * it on RoCEv2 ({@link Context#initAhFromWc}, {@link ProtectionDomain#createAhFromWc}): from the 40-byte GRH slot ahead of the data,
 * which holds a whole IPv6 header, or for IPv4 twenty unused bytes and then the IPv4 header.
 * The destination is the packet's source address; the local GID index is the one whose GID is
 * the packet's destination; the hop limit and traffic class are the packet's.
 */
public final class ReplyAddress
{
    /** Bytes of the GRH slot. */
    public static final int GRH_BYTES = 40;
    /** Where an IPv4 header starts in the slot. */
    static final int IPV4_OFFSET = 20;

    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int IPPROTO_UDP = 17;

    private ReplyAddress()
    {
    }

    /**
     * @param context the device the reply goes out of.
     * @param portNum its port.
     * @param wc      the receive completion.
     * @param grh     the receive buffer's first 40 bytes.
     * @return the address vector of the sender.
     * @throws RdmaException EINVAL if the completion has no GRH, the slot holds neither an IPv4 nor
     *                       a RoCEv2 IPv6 header, the packet went to a multicast address, or its
     *                       destination is none of the port's GIDs.
     */
    public static AhAttr of(final Context context, final int portNum, final WorkCompletion wc, final MemorySegment grh)
    {
        RdmaException.check((wc.wcFlags() & WcFlags.GRH) != 0, Errno.EINVAL,
            "the completion has no GRH: on RoCE every UD receive should");
        final int versionClassFlow = grh.get(INT_BE, 0);
        final int flowLabel = versionClassFlow & 0xFFFFF;
        final Gid source;
        final Gid destination;
        final int hopLimit;
        final int trafficClass;
        if (isIpv4(grh))
        {
            final int saddr = grh.get(INT_BE, IPV4_OFFSET + 12);
            final int daddr = grh.get(INT_BE, IPV4_OFFSET + 16);
            RdmaException.check((daddr >>> 28) != 0xE, Errno.EINVAL,
                "the message was sent to a multicast address: there is no GID to reply from");
            source = Gid.fromIpv4(saddr);
            destination = Gid.fromIpv4(daddr);
            hopLimit = Byte.toUnsignedInt(grh.get(ValueLayout.JAVA_BYTE, IPV4_OFFSET + 8));
            trafficClass = Byte.toUnsignedInt(grh.get(ValueLayout.JAVA_BYTE, IPV4_OFFSET + 1));
        }
        else
        {
            RdmaException.check((versionClassFlow >>> 28) == 6 &&
                Byte.toUnsignedInt(grh.get(ValueLayout.JAVA_BYTE, 6)) == IPPROTO_UDP, Errno.EINVAL,
                "the GRH slot holds neither an IPv4 header nor a RoCEv2 IPv6 header");
            destination = Gid.of(grh.asSlice(24, 16).toArray(ValueLayout.JAVA_BYTE));
            RdmaException.check(!destination.isMulticast(), Errno.EINVAL,
                "the message was sent to a multicast GID: there is no GID to reply from");
            source = Gid.of(grh.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE));
            hopLimit = Byte.toUnsignedInt(grh.get(ValueLayout.JAVA_BYTE, 7));
            trafficClass = (versionClassFlow >>> 20) & 0xFF;
        }
        final int sgidIndex = gidIndex(context, portNum, destination);
        return new AhAttr(new GlobalRoute(source, flowLabel, sgidIndex, hopLimit, trafficClass), wc.slid(), wc.sl(),
            wc.dlidPathBits(), 0, portNum);
    }

    /**
     * As libibverbs decides: not IPv6 by its version nibble means IPv4 if the header at byte 20
     * says so; an IPv6 version nibble still means IPv4 when byte 20 starts a five-word IPv4
     * header whose checksum is right.
     */
    static boolean isIpv4(final MemorySegment grh)
    {
        final int ipv6Version = Byte.toUnsignedInt(grh.get(ValueLayout.JAVA_BYTE, 0)) >>> 4;
        final int first = Byte.toUnsignedInt(grh.get(ValueLayout.JAVA_BYTE, IPV4_OFFSET));
        if (ipv6Version != 6)
        {
            return first >>> 4 == 4;
        }
        if ((first & 0x0F) != 5)
        {
            return false;
        }
        return checksum(grh) == grh.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN),
            IPV4_OFFSET + 10);
    }

    /**
     * @return the IPv4 header checksum the header at byte 20 should carry.
     */
    static short checksum(final MemorySegment grh)
    {
        int sum = 0;
        for (int i = 0; i < 20; i += 2)
        {
            if (i == 10)
            {
                continue;
            }
            sum += Short.toUnsignedInt(grh.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN),
                IPV4_OFFSET + i));
        }
        while ((sum >>> 16) != 0)
        {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (short)~sum;
    }

    private static int gidIndex(final Context context, final int portNum, final Gid gid)
    {
        final PortAttr port = context.queryPort(portNum);
        for (int index = 0; index < port.gidTblLen(); index++)
        {
            final Gid candidate;
            try
            {
                candidate = context.queryGid(portNum, index);
            }
            catch (final RdmaException ex)
            {
                break;
            }
            if (candidate.equals(gid))
            {
                return index;
            }
            if (candidate.isZero() && index > 0)
            {
                break;
            }
        }
        throw new RdmaException(Errno.EINVAL, "the message went to " + gid + ", which is no GID of "
            + context.device().name() + " port " + portNum);
    }
}
