package io.rdma4j.bench;

import io.rdma4j.soft.SoftDevice;
import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.link.IpLink;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.link.SameHostLink;
import io.rdma4j.soft.link.socket.UdpLinks;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * What the benchmarks between two soft devices of one JVM set up alike: each device, the link under it, and a
 * UD QP in RTS.
 */
final class UdBenchSetup
{
    /** The Q_Key of every benchmark QP. */
    static final int QKEY = 0x1111;

    private UdBenchSetup()
    {
    }

    /**
     * @param socket   "nio" or "linux": the socket under the link.
     * @param sameHost true to put the same-host path (a shared-memory inbox) over it.
     * @param address  the device's address.
     * @return the link for the device's builder.
     */
    static Link link(final String socket, final boolean sameHost, final InetAddress address)
    {
        final IpLink udp = UdpLinks.open(UdpLinks.Socket.valueOf(socket.toUpperCase(Locale.ROOT)), address,
            Link.ROCE_V2_PORT);
        return sameHost ? SameHostLink.over(udp, SoftSettings.fromSystem().shmDirectories(),
            System.getLogger(UdBenchSetup.class.getName())) : udp;
    }

    /**
     * @param name        the device's name.
     * @param address     its IPv4 loopback address, as text.
     * @param pollsInline true for polling mode, false for thread progress.
     * @param socket      "nio" or "linux": the socket under its link.
     * @param sameHost    true to put the same-host path over the socket.
     * @return the device, open.
     * @throws UnknownHostException never for a literal address.
     */
    static Context device(final String name, final String address, final boolean pollsInline, final String socket,
        final boolean sameHost) throws UnknownHostException
    {
        return SoftDevice.builder(name, InetAddress.getByName(address)).pollsInline(pollsInline)
            .link(a -> link(socket, sameHost, a)).build().open();
    }

    /**
     * @param pd    the protection domain.
     * @param cq    the CQ of both queues.
     * @param depth the depth of both queues.
     * @return a UD QP in RTS with {@link #QKEY}.
     */
    static QueuePair udQp(final ProtectionDomain pd, final CompletionQueue cq, final int depth)
    {
        final QueuePair qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(depth, depth)));
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(QKEY));
        qp.modify(new QpAttr().state(QpState.RTR));
        qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
        return qp;
    }
}
