package io.rdma4j.tools.perf;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.JoinFlags;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.RdmaException;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * perftest's {@code -g} (its multicast SEND tests) on this side: the group's GID as perftest makes it, and the
 * receiving QP's membership. perftest itself only attaches its QP ({@code ibv_attach_mcast}) and on Ethernet joins
 * nothing; on a RoCE NIC the adapter steers the group's packets to the QP, but a software RoCE device (rxe, the soft
 * device) takes them from the host's IP stack, which drops a group no one on the host joined. So this side joins the
 * group through the connection manager too (its IP membership: IGMP or MLD), then attaches its QP.
 */
final class PerftestGroup implements AutoCloseable
{
    /** perftest's QPN for "a group": its dest carries it where the QPN would be. */
    static final int MULTICAST_QPN = 0xFFFFFF;
    /** perftest's MCG_GID, ff01:0:0:2:c985::, the server's group; its client's ends in 1. */
    private static final byte[] DEFAULT_MGID = {(byte)0xFF, 1, 0, 0, 0, 2, (byte)0xC9, (byte)0x85, 0, 0, 0, 0, 0, 0,
        0, 0};
    private static final int GID_BYTES = 16;
    private static final long JOIN_WAIT_S = 30;

    private final EventChannel events;
    private final CmId id;
    private final Gid mgid;
    private final RdmaPeer peer;
    private boolean attached;

    private PerftestGroup(final EventChannel events, final CmId id, final Gid mgid, final RdmaPeer peer)
    {
        this.events = events;
        this.id = id;
        this.mgid = mgid;
        this.peer = peer;
    }

    /**
     * The group as perftest's {@code set_multicast_gid} makes it.
     *
     * @param userMgid perftest's {@code -M}/{@code --MGID}: 16 colon-separated byte values, each decimal, 0x-hex or
     *                 0-octal as C's {@code strtoll(s, NULL, 0)} reads them; or null for the default.
     * @param client   true for perftest's client, whose default group is the server's plus one in its last byte.
     * @return the group's GID.
     * @throws IllegalArgumentException naming the part at fault when {@code userMgid} is not 16 bytes so written.
     */
    static Gid mgid(final String userMgid, final boolean client)
    {
        if (userMgid == null)
        {
            final byte[] gid = DEFAULT_MGID.clone();
            if (client)
            {
                gid[GID_BYTES - 1]++;
            }
            return Gid.of(gid);
        }
        final String[] parts = userMgid.split(":", -1);
        if (parts.length != GID_BYTES)
        {
            throw new IllegalArgumentException("--MGID " + userMgid + ": perftest's MGID is 16 byte values " +
                "separated by ':' (e.g. 0:0:0:0:0:0:0:0:0:0:255:255:239:1:1:1 for ::ffff:239.1.1.1), not " +
                parts.length);
        }
        final byte[] gid = new byte[GID_BYTES];
        for (int i = 0; i < GID_BYTES; i++)
        {
            final int value = byteValue(parts[i]);
            if (value < 0)
            {
                throw new IllegalArgumentException("--MGID " + userMgid + ": byte " + (i + 1) + " (" + parts[i] +
                    ") is not a number from 0 to 255");
            }
            gid[i] = (byte)value;
        }
        final Gid result = Gid.of(gid);
        if (!result.isMulticast())
        {
            throw new IllegalArgumentException("--MGID " + userMgid + ": " + result + " is not a multicast GID " +
                "(first byte 255, or an IPv4-mapped 224.0.0.0/4 address)");
        }
        return result;
    }

    /** C's strtoll with base 0, limited to a byte: -1 when the text is not one. */
    private static int byteValue(final String text)
    {
        try
        {
            final int value;
            if (text.startsWith("0x") || text.startsWith("0X"))
            {
                value = Integer.parseInt(text.substring(2), 16);
            }
            else if (text.length() > 1 && text.startsWith("0"))
            {
                value = Integer.parseInt(text.substring(1), 8);
            }
            else
            {
                value = Integer.parseInt(text);
            }
            return value >= 0 && value <= 255 ? value : -1;
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    /**
     * Join the group through the connection manager (its IP membership on this side's address), then attach the
     * run's first QP, as perftest attaches it.
     *
     * @param mgid  the group.
     * @param local this side's address, where the membership goes.
     * @param peer  this side's resources.
     * @return the membership, to close after the run.
     * @throws PerfException        if the group has no IP address, or the join or the attach is refused.
     * @throws InterruptedException if interrupted.
     */
    static PerftestGroup join(final Gid mgid, final InetAddress local, final RdmaPeer peer)
        throws PerfException, InterruptedException
    {
        final InetAddress group = mgid.toInet();
        if (!group.isMulticastAddress())
        {
            throw new PerfException("-g: the group " + mgid + " is no IP multicast address, which a RoCE device " +
                "joins: give --MGID an IPv4-mapped group (0:0:0:0:0:0:0:0:0:0:255:255:239:1:1:1) or an IPv6 one");
        }
        final EventChannel events = RdmaCm.createEventChannel();
        final PerftestGroup member;
        try
        {
            member = new PerftestGroup(events, events.createId(null, PortSpace.UDP), mgid, peer);
        }
        catch (final RdmaException ex)
        {
            events.close();
            throw new PerfException("-g: " + ex.getMessage(), ex);
        }
        try
        {
            member.id.bindAddr(new InetSocketAddress(local, 0));
            member.id.joinMulticast(new InetSocketAddress(group, 0), JoinFlags.FULLMEMBER, null);
            final CmEvent event = events.getEvent(JOIN_WAIT_S, TimeUnit.SECONDS);
            if (event == null || event.type() != CmEventType.MULTICAST_JOIN)
            {
                final String what = event == null ? "nothing in " + JOIN_WAIT_S + " s"
                    : event.type().description() + " (status " + event.status() + ")";
                if (event != null)
                {
                    event.ack();
                }
                throw new PerfException("-g: joining " + group.getHostAddress() + " on " + local.getHostAddress() +
                    ": " + what);
            }
            event.ack();
            peer.qp(0).attachMulticast(mgid, 0);
            member.attached = true;
            return member;
        }
        catch (final RdmaException | PerfException | InterruptedException ex)
        {
            member.close();
            if (ex instanceof RdmaException)
            {
                throw new PerfException("-g: group " + mgid + ": " + ex.getMessage(), ex);
            }
            throw ex;
        }
    }

    /**
     * Detach the QP, leave the group, destroy the id and its channel.
     */
    @Override
    public void close()
    {
        try
        {
            if (attached)
            {
                attached = false;
                peer.qp(0).detachMulticast(mgid, 0);
                id.leaveMulticast(new InetSocketAddress(mgid.toInet(), 0));
            }
        }
        catch (final RdmaException ex)
        {
            // the QP or the membership went with the peer: nothing left to undo
        }
        finally
        {
            id.close();
            events.close();
        }
    }
}
