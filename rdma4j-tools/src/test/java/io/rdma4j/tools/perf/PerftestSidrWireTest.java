package io.rdma4j.tools.perf;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.cm.UdParam;
import io.rdma4j.testing.TestNet;
import io.rdma4j.tools.Main;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcFlags;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code -R} on UD against the steps perftest 4.5-0.17 takes there ({@code rdma_cm_connection_request_handler},
 * {@code rdma_cm_establish_ud_connection}), scripted on this JVM's soft device: ids in the UDP port space (SIDR); a
 * server that posts one receive of GRH + 4 bytes before it accepts with its QPN in the reply; a client that, on
 * ESTABLISHED, makes its address handle from the reply and SENDs 4 bytes with its QPN as the immediate; and a
 * server that answers to that QPN, with its own QP's Q_Key (rdma_cm's), at the address the GRH gave.
 */
class PerftestSidrWireTest
{
    private static final long WAIT_S = 30;
    /** perftest's {@code UD_ADDITION + sizeof(uint32_t)}: the GRH and the QPN's 4 bytes. */
    private static final int QPN_RECEIVE_BYTES = 44;

    /** ib_send_lat -R -c UD on the port: a client when given the server, else the server. */
    private static PerfConfig sendLatOverSidr(final int port, final String... server)
    {
        final List<String> args = new ArrayList<>(List.of("perf", "ib_send_lat", "-R", "-c", "UD", "-s", "64", "-p",
            String.valueOf(port)));
        args.addAll(List.of(server));
        final CommandLine.ParseResult result = Main.commandLine().parseArgs(args.toArray(String[]::new));
        return ((PerfCommand)result.subcommand().commandSpec().userObject()).config();
    }

    /** One UD QP as perftest makes it on an rdma_cm id: its own PD, CQ and buffer. */
    private static final class ScriptedQp implements AutoCloseable
    {
        private final CmId id;
        private final ProtectionDomain pd;
        private final CompletionQueue cq;
        private final Arena arena = Arena.ofShared();
        private final MemorySegment buf;
        private final MemoryRegion mr;

        ScriptedQp(final CmId id)
        {
            this.id = id;
            final Context verbs = id.verbs();
            pd = verbs.allocPd();
            cq = verbs.createCq(8, null, 0);
            buf = arena.allocate(4096, 4096);
            mr = pd.regMr(buf, EnumSet.of(AccessFlag.LOCAL_WRITE));
            id.createQp(pd, QpInitAttr.of(QpType.UD, cq, QpCap.of(4, 4)));
        }

        WorkCompletion awaitOne()
        {
            final WorkCompletion[] wcs = WorkCompletion.array(1);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
            while (cq.poll(wcs) == 0)
            {
                assertTrue(System.nanoTime() < deadline, "no completion in " + WAIT_S + " s");
                Thread.onSpinWait();
            }
            assertTrue(wcs[0].isSuccess(), "completion status " + wcs[0].status());
            return wcs[0];
        }

        @Override
        public void close()
        {
            id.destroyQp();
            mr.close();
            cq.close();
            pd.close();
            arena.close();
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSendItsQpnInTheImmediateToPerftestsServerAndAimAtTheQpnOfItsReply() throws Exception
    {
        final String host = TestNet.host(209);
        final int port = TestNet.tcpPort(39);
        final PerfConfig cfg = sendLatOverSidr(port, host);
        try (EventChannel server = RdmaCm.createEventChannel(); CmId listener = server.createId(null, PortSpace.UDP))
        {
            listener.bindAddr(new InetSocketAddress(InetAddress.getByName(host), port));
            listener.listen(1);
            try (RdmaPeer peer = new RdmaPeer(cfg, listener.verbs()))
            {
                final CompletableFuture<CmTestQps> client = CompletableFuture.supplyAsync(() ->
                {
                    try
                    {
                        return CmTestQps.connect(host, port, peer, cfg);
                    }
                    catch (final PerfException | InterruptedException ex)
                    {
                        throw new IllegalStateException(ex);
                    }
                });
                final CmEvent request = server.expect(CmEventType.CONNECT_REQUEST, WAIT_S, TimeUnit.SECONDS);
                final CmId id = request.id();
                request.ack();
                try (ScriptedQp perftest = new ScriptedQp(id))
                {
                    perftest.id.qp().postRecv(new RecvWr().wrId(0).sge(perftest.mr, 0, QPN_RECEIVE_BYTES));
                    id.accept(ConnParam.builder().qpNum(perftest.id.qp().qpNum()).build());
                    final WorkCompletion wc = perftest.awaitOne();
                    try (CmTestQps qps = client.get(WAIT_S, TimeUnit.SECONDS))
                    {
                        assertEquals(WcOpcode.RECV, wc.opcode());
                        assertTrue((wc.wcFlags() & WcFlags.WITH_IMM) != 0, "the QPN comes as immediate data");
                        assertEquals(peer.qp(0).qpNum(), wc.immData(), "the immediate is the client's QPN");
                        assertEquals(QPN_RECEIVE_BYTES, wc.byteLen(), "the GRH and 4 bytes, as perftest sends");
                        assertEquals(wc.srcQp(), wc.immData(), "sent from the QP it names");
                        final UdPeer ud = qps.ud();
                        assertArrayEquals(new int[] {perftest.id.qp().qpNum()}, ud.qpns(), "the reply's QPN");
                        assertEquals(RdmaCm.UDP_QKEY, ud.qkey(), "rdma_cm's Q_Key, not the TCP exchange's");
                    }
                }
                id.close();
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldLearnPerftestsClientFromItsImmediateAndGrh() throws Exception
    {
        final String host = TestNet.host(210);
        final int port = TestNet.tcpPort(9);
        final PerfConfig cfg = sendLatOverSidr(port);
        final CmTestQps qps = CmTestQps.listen(InetAddress.getByName(host), port, cfg);
        try (EventChannel channel = RdmaCm.createEventChannel(); CmId id = channel.createId(null, PortSpace.UDP))
        {
            final InetSocketAddress target = new InetSocketAddress(InetAddress.getByName(host), port);
            CmControlLink.resolve(channel, id, target);
            try (RdmaPeer peer = new RdmaPeer(cfg, id.verbs()); ScriptedQp perftest = new ScriptedQp(id))
            {
                final CompletableFuture<Void> server = CompletableFuture.runAsync(() ->
                {
                    try
                    {
                        qps.acceptAll(peer, cfg);
                    }
                    catch (final PerfException | InterruptedException ex)
                    {
                        throw new IllegalStateException(ex);
                    }
                });
                id.connect(ConnParam.defaults());
                final CmEvent established = channel.expect(CmEventType.ESTABLISHED, WAIT_S, TimeUnit.SECONDS);
                final UdParam reply = established.udParam();
                established.ack();
                assertNotNull(reply, "SIDR's reply");
                final int clientQpn = perftest.id.qp().qpNum();
                try (AddressHandle ah = perftest.pd.createAh(reply.ahAttr()))
                {
                    perftest.id.qp().postSend(new SendWr().wrId(0).opcode(WrOpcode.SEND_WITH_IMM)
                        .sendFlags(SendFlags.SIGNALED).immData(clientQpn).sge(perftest.mr, 0, Integer.BYTES)
                        .ud(ah, reply.qpNum(), reply.qkey()));
                    perftest.awaitOne();
                }
                server.get(WAIT_S, TimeUnit.SECONDS);
                assertEquals(peer.qp(0).qpNum(), reply.qpNum(), "the reply names the server's QP");
                assertEquals(RdmaCm.UDP_QKEY, reply.qkey());
                final UdPeer ud = qps.ud();
                assertArrayEquals(new int[] {clientQpn}, ud.qpns(), "the QPN from the immediate");
                assertEquals(RdmaCm.UDP_QKEY, ud.qkey(), "the server's own QP's Q_Key");
                final AhAttr back = ud.address();
                assertEquals(id.verbs().queryGid(1, 0), back.grh().dgid(), "the address the GRH gave");
                qps.close();
            }
        }
    }
}
