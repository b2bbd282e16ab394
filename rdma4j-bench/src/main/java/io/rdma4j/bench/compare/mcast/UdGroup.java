package io.rdma4j.bench.compare.mcast;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.JoinFlags;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.cm.Resources;
import io.rdma4j.cm.UdParam;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A plain UD QP joined to a multicast group through the connection manager, as rmcast's own data path joins
 * (a sender as a send-only member, a receiver as a full member), without anything rmcast adds on top.
 */
final class UdGroup implements AutoCloseable
{
    private static final int CM_TIMEOUT_MS = 10_000;

    final Resources resources = new Resources();
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    /** The port's MTU: the largest UD message. */
    final int mtu;
    private final EventChannel channel;
    private final CmId id;
    private final InetSocketAddress group;
    private final boolean sender;

    /**
     * @param args   {@code local=}, {@code group=}.
     * @param sender true for a send-only member.
     * @param depth  the send queue's depth (sender) or the receives posted (receiver).
     */
    UdGroup(final Map<String, String> args, final boolean sender, final int depth) throws UnknownHostException
    {
        this.sender = sender;
        group = new InetSocketAddress(InetAddress.getByName(args.get("group")), 0);
        boolean opened = false;
        try
        {
            channel = resources.add(RdmaCm.createEventChannel());
            id = resources.add(channel.createId(null, PortSpace.UDP));
            id.bindAddr(new InetSocketAddress(InetAddress.getByName(args.get("local")), 0));
            pd = resources.add(id.verbs().allocPd());
            mtu = id.verbs().queryPort(1).activeMtu().bytes();
            cq = resources.add(id.verbs().createCq(depth + 1, null, 0));
            qp = id.createQp(pd, QpInitAttr.of(QpType.UD, cq, sender ? QpCap.of(depth + 1, 1) : QpCap.of(1, depth)));
            opened = true;
        }
        finally
        {
            if (!opened)
            {
                resources.close();
            }
        }
    }

    /**
     * Join the group; a receiver posts its receives before, so that nothing sent after the join is missed.
     *
     * @return the group's QP number, Q_Key and address handle attributes, for a sender's sends.
     */
    UdParam join() throws InterruptedException
    {
        id.joinMulticast(group, sender ? JoinFlags.SENDONLY_FULLMEMBER : JoinFlags.FULLMEMBER, null);
        try (CmEvent joined = channel.expect(CmEventType.MULTICAST_JOIN, CM_TIMEOUT_MS, TimeUnit.MILLISECONDS))
        {
            return joined.udParam();
        }
    }

    @Override
    public void close()
    {
        resources.close();
    }
}
