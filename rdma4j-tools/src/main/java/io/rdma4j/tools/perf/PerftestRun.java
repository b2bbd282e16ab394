package io.rdma4j.tools.perf;

import io.rdma4j.tools.perf.perftest.BwReport;
import io.rdma4j.tools.perf.perftest.PerftestChannel;
import io.rdma4j.tools.perf.perftest.PerftestDest;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpType;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One {@code rdma4j perf} run that meets its peer with perftest's exchange, so that the peer may be perftest's
 * {@code ib_*} tool (or {@code rdma4j perf} given the same flag). It follows perftest's order message for
 * message: versions, page and cache-line sizes, MTU, then the QPs' data as often as the test's perftest tool
 * swaps it (the later swaps are its barriers), the run with no warm-up, the bandwidth report a write_bw or
 * read_bw client hands its server, and the closing swap and {@code "done"} (which ib_write_lat leaves out). No UDP baseline: the peer has none.
 */
final class PerftestRun
{
    /** The buffers' cycle this side announces: a page, as perftest's default. */
    private static final int CYCLE_BUFFER = 4096;
    /** The cache line this side announces, perftest's default. */
    private static final int CACHE_LINE = 64;
    private static final long HIGHEST_NS = TimeUnit.SECONDS.toNanos(60);

    private final PerfConfig cfg;
    private final InetAddress bindAddress;
    private final PrintWriter out;
    /** With -R, the test's QPs' connections once made. */
    private CmTestQps testQps;
    /** With -g on the side that receives, its group membership. */
    private PerftestGroup group;

    /**
     * @param config      the run.
     * @param bindAddress where the server listens (null: every address).
     * @param out         where the lines go.
     */
    PerftestRun(final PerfConfig config, final InetAddress bindAddress, final PrintWriter out)
    {
        this.cfg = config;
        this.bindAddress = bindAddress;
        this.out = out;
    }

    /**
     * Run it.
     *
     * @throws PerfException        if the run fails.
     * @throws IOException          if the connection fails or the peer breaks perftest's exchange.
     * @throws InterruptedException if interrupted.
     */
    void run() throws PerfException, IOException, InterruptedException
    {
        if (!cfg.rdmaCm())
        {
            try (RdmaPeer peer = new RdmaPeer(cfg); ControlChannel control = open())
            {
                try
                {
                    exchangeAndRun(peer, new PerftestChannel(control.in(), control.out(), cfg.isClient()));
                }
                finally
                {
                    if (group != null)
                    {
                        group.close();
                    }
                }
            }
            return;
        }
        try (CmControlLink link = cfg.isClient() ? CmControlLink.connect(cfg.serverName(), cfg.tcpPort())
            : CmControlLink.accept(bindAddress, cfg.tcpPort(), out, cfg.test().label()))
        {
            final RdmaPeer peer = new RdmaPeer(cfg, link.verbs());
            try
            {
                exchangeAndRun(peer, PerftestChannel.overRdmaCm(link, cfg.isClient(), peer.gidIndex()));
            }
            finally
            {
                // the ids destroy the QPs, which must go before the CQ and PD they use
                if (testQps != null)
                {
                    testQps.close();
                }
                peer.close();
            }
        }
    }

    private void exchangeAndRun(final RdmaPeer peer, final PerftestChannel wire)
        throws PerfException, IOException, InterruptedException
    {
        final PerfTest test = cfg.test();
        final int size = cfg.sizes().getFirst();
        final String version = wire.versions();
        wire.sysData(CYCLE_BUFFER, CACHE_LINE);
        final Mtu mtu = Mtu.fromValue(wire.mtu(peer.activeMtu().value()));
        peer.pathMtu(mtu);
        if (cfg.transport() == QpType.UD && size > mtu.bytes())
        {
            throw new PerfException("-s " + size + ": a UD message is one packet, and the path MTU the two " +
                "sides agreed on is " + mtu.bytes());
        }
        if (cfg.rdmaCm())
        {
            // -R: a swap of empty data, the test's QPs connected on the same port, another swap
            // (as the server this side listens before the first swap, so the client never finds no listener)
            final PerftestDest empty = new PerftestDest(0, 0, 0, 0, 0, 0, new byte[16], 0);
            testQps = cfg.isClient() ? null : CmTestQps.listen(bindAddress, cfg.tcpPort(), cfg);
            wire.handshake(empty);
            if (cfg.isClient())
            {
                testQps = CmTestQps.connect(cfg.serverName(), cfg.tcpPort(), peer, cfg);
            }
            else
            {
                testQps.acceptAll(peer, cfg);
            }
            wire.handshake(empty);
        }
        final PerftestDest[] mine = dests(peer);
        if (cfg.mcg() && (test == PerfTest.SEND_LAT || !cfg.isClient()))
        {
            mine[0] = joinGroup(peer, mine[0]);
        }
        // read_lat, write_lat and atomic_lat swap once more before the QPs' data
        if (test == PerfTest.WRITE_LAT || test == PerfTest.READ_LAT || test == PerfTest.ATOMIC_LAT)
        {
            wire.handshake(mine[0]);
        }
        final PerftestDest[] theirs = new PerftestDest[mine.length];
        for (int i = 0; i < mine.length; i++)
        {
            theirs[i] = wire.handshake(mine[i]);
        }
        if (cfg.rdmaCm())
        {
            final UdPeer ud = testQps.ud();
            final PerfEndpoint remote = endpoint(theirs);
            if (ud != null && ud.address() != null)
            {
                // perftest sends to the QPNs and Q_Key rdma_cm gave, not to those of the exchange
                peer.connectedUd(new PerfEndpoint(ud.qpns(), remote.psns(), remote.gid(), remote.address(),
                    remote.rkey(), remote.length(), remote.udpPort()), ud.address(), ud.qkey());
            }
            else
            {
                peer.connected(remote);
            }
        }
        else
        {
            connect(peer, mine, theirs);
        }
        // the SEND tools swap once more after connecting; every tool swaps the data again, then the receiving
        // side posts its receives before the last swap, after which the sender may send
        if (test.usesReceives())
        {
            wire.handshake(mine[0]);
        }
        for (final PerftestDest dest : mine)
        {
            wire.handshake(dest);
        }
        if (test.usesReceives())
        {
            for (int i = 0; i < peer.qpCount(); i++)
            {
                peer.postRecvs(i, cfg.rxDepth(), size);
            }
        }
        wire.handshake(mine[0]);
        out.println(MachineLine.current().text());
        out.println(peer.deviceLine());
        out.printf(Locale.ROOT, "# rdma4j perf %s with perftest's exchange%s (peer version %s): %s, %d QP(s), " +
            "%d iterations%s, path MTU %d, GID index %d%s%n", test.label(), cfg.rdmaCm() ? " over rdma_cm (-R)" : "",
            version, cfg.transport(), cfg.numQp(), cfg.iterations(), cfg.warmup() == 0 ? "" : " (the first " +
            cfg.warmup() + " unrecorded: --warmup)", mtu.bytes(), peer.gidIndex(), groups(mine[0], theirs[0]));
        out.println(PerftestReport.RULE);
        out.println(test.isLatency() ? PerftestReport.LATENCY_HEADER : PerftestReport.BANDWIDTH_HEADER);
        out.flush();
        final RdmaLoops loops = new RdmaLoops(peer, cfg);
        if (test.isLatency())
        {
            latency(loops, size);
        }
        else
        {
            bandwidth(loops, wire, mine[0], size);
        }
        out.println(PerftestReport.RULE);
        out.flush();
        // ib_write_lat ends with no closing swap: each side's last WRITE completed, so the peer has it
        if (test != PerfTest.WRITE_LAT)
        {
            wire.close(mine[0]);
        }
    }

    /**
     * perftest's receiving side of -g: its QP attached to its group, whose GID and the group QPN its dest carries.
     * perftest refuses a pair whose GIDs are of different IP versions, and the group's GID stands in its dest for the
     * port's: its default group is IPv6, so over IPv4 only a group given with --MGID runs.
     */
    private PerftestDest joinGroup(final RdmaPeer peer, final PerftestDest own) throws PerfException,
        InterruptedException
    {
        final Gid mgid = PerftestGroup.mgid(cfg.mgid(), cfg.isClient());
        final Gid port = Gid.of(own.gid());
        if (mgid.isIpv4Mapped() != port.isIpv4Mapped())
        {
            throw new PerfException("-g: the group " + mgid + " and this side's GID " + port + " are of different " +
                "IP versions, which perftest refuses (\"Found Incompatibility issue with GID types\"): give --MGID " +
                "a group of the GID's family" + (port.isIpv4Mapped() ? ", e.g. 0:0:0:0:0:0:0:0:0:0:255:255:239:1:1:1"
                : ""));
        }
        group = PerftestGroup.join(mgid, bindAddress != null ? bindAddress : port.toInet(), peer);
        return new PerftestDest(own.lid(), own.outReads(), PerftestGroup.MULTICAST_QPN, own.psn(), own.rkey(),
            own.vaddr(), mgid.toBytes(), own.srqn());
    }

    private String groups(final PerftestDest mine, final PerftestDest theirs)
    {
        if (!cfg.mcg())
        {
            return "";
        }
        return (mine.qpn() == PerftestGroup.MULTICAST_QPN ? ", receives on group " + Gid.of(mine.gid()) : "") +
            (theirs.qpn() == PerftestGroup.MULTICAST_QPN ? ", sends to group " + Gid.of(theirs.gid()) : "");
    }

    private static void connect(final RdmaPeer peer, final PerftestDest[] mine, final PerftestDest[] theirs)
        throws PerfException
    {
        if (mine[0].isIpv4Gid() != theirs[0].isIpv4Gid())
        {
            throw new PerfException("this side's GID " + Gid.of(mine[0].gid()) + " and the peer's " +
                Gid.of(theirs[0].gid()) + " are of different IP versions: give -x the index of the same family");
        }
        peer.connect(endpoint(theirs));
    }

    private void latency(final RdmaLoops loops, final int size) throws PerfException, InterruptedException
    {
        final PerfTest test = cfg.test();
        final Histogram h = new Histogram(HIGHEST_NS, 3);
        if (test.halvesRoundTrip())
        {
            // perftest's ib_send_lat client sends first, its ib_write_lat server writes first
            final boolean first = cfg.isClient() == (test == PerfTest.SEND_LAT);
            loops.perftestPingPong(size, cfg.iterations(), cfg.warmup(), first, h);
        }
        else if (cfg.isClient())
        {
            loops.latencyClient(size, cfg.iterations(), cfg.warmup(), h);
        }
        else
        {
            // READ and atomics: the client measures; the server's device answers and it waits for the end
            out.println(" (the client measures " + test.label() + ")");
            return;
        }
        out.println(PerftestReport.latency(size, cfg.iterations() - cfg.warmup(), h));
    }

    private void bandwidth(final RdmaLoops loops, final PerftestChannel wire, final PerftestDest mine,
        final int size) throws PerfException, IOException, InterruptedException
    {
        final PerfTest test = cfg.test();
        final int count = cfg.iterations() * (test.usesReceives() ? cfg.numQp() : 1);
        if (test.usesReceives())
        {
            // send_bw: each side prints what it measured, nothing more is swapped
            final long ns = cfg.isClient() ? loops.bandwidthClient(size, count) : loops.receiveStream(count);
            out.println(PerftestReport.bandwidth(PerftestReport.bandwidth(size, count, ns)));
            return;
        }
        // write_bw and read_bw: the server waits for the client's end, then prints the client's report
        BwReport report = new BwReport(0, 0, 0, 0, 0);
        if (cfg.isClient())
        {
            report = PerftestReport.bandwidth(size, count, loops.bandwidthClient(size, count));
        }
        wire.handshake(mine);
        final BwReport theirs = wire.bwReport(report);
        out.println(PerftestReport.bandwidth(cfg.isClient() ? report : theirs));
    }

    private ControlChannel open() throws IOException, InterruptedException
    {
        if (cfg.isClient())
        {
            return ControlChannel.connect(cfg.serverName(), cfg.tcpPort());
        }
        try (ServerSocket listener = ControlChannel.listen(bindAddress, cfg.tcpPort()))
        {
            out.printf(Locale.ROOT, "# %s server (perftest's exchange): waiting for a client on TCP port %d%n",
                cfg.test().label(), listener.getLocalPort());
            out.flush();
            return ControlChannel.accept(listener);
        }
    }

    private static PerftestDest[] dests(final RdmaPeer peer)
    {
        final PerfEndpoint endpoint = peer.endpoint(0);
        final PerftestDest[] dests = new PerftestDest[endpoint.qpns().length];
        for (int i = 0; i < dests.length; i++)
        {
            dests[i] = new PerftestDest(0, RdmaPeer.MAX_RD_ATOMIC, endpoint.qpns()[i], endpoint.psns()[i],
                endpoint.rkey(), endpoint.address(), endpoint.gid().toBytes(), 0);
        }
        return dests;
    }

    private static PerfEndpoint endpoint(final PerftestDest[] theirs)
    {
        final int[] qpns = new int[theirs.length];
        final int[] psns = new int[theirs.length];
        for (int i = 0; i < theirs.length; i++)
        {
            qpns[i] = theirs[i].qpn();
            psns[i] = theirs[i].psn();
        }
        // perftest gives each QP its own buffer; rdma4j's loops aim every QP at the first one's
        return new PerfEndpoint(qpns, psns, Gid.of(theirs[0].gid()), theirs[0].vaddr(), theirs[0].rkey(),
            CYCLE_BUFFER, 0);
    }
}
