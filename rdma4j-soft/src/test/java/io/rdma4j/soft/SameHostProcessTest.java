package io.rdma4j.soft;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.SameHostLink;
import io.rdma4j.soft.link.ShmDirectory;
import io.rdma4j.soft.link.TestLinks;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.rdma4j.soft.RcFixtures.bytes;
import static io.rdma4j.soft.RcFixtures.fill;
import static io.rdma4j.soft.RcFixtures.one;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two processes, each with a device on its own loopback address and the same-host path: UD and RC traffic
 * between them goes through the inboxes and never the sockets, and a process killed without closing its
 * device sends its peers back to UDP and has its inbox file removed by the next device that starts.
 */
// A separate thread, because a read of the peer's output does not yield to an interrupt.
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SameHostProcessTest
{
    private static final int SUBNET = TestNet.nextSubnet();

    @Test
    void udAndRcBetweenTwoProcessesTakeTheInboxes() throws Exception
    {
        final InetAddress own = address(1);
        final InetAddress other = address(2);
        final Process peer = start(other);
        try (BufferedReader lines = reader(peer); PrintStream out = new PrintStream(peer.getOutputStream(), true,
            StandardCharsets.US_ASCII))
        {
            final String[] ready = lines.readLine().split(" ");
            assertEquals("READY", ready[0]);
            final Context context = SoftDevice.builder("parent", own).sameHost(true).build().open();
            try
            {
                final UdEndpoint ud = new UdEndpoint(context);
                final RcEndpoint rc = new RcEndpoint(context, QpType.RC, 1 << 16, 16);
                out.println("PEER " + own.getHostAddress() + " " + ud.qp.qpNum() + " " + rc.qp.qpNum());
                connect(rc, Gid.fromInet(other), Integer.parseInt(ready[2]));
                assertEquals("CONNECTED", lines.readLine());

                ud.postRecvs(10);
                final AddressHandle toPeer = ud.ahTo(Gid.fromInet(other));
                for (int i = 0; i < 10; i++)
                {
                    ud.send(toPeer, Integer.parseInt(ready[1]), UdEndpoint.QKEY, "ud " + i, i);
                    final List<WorkCompletion> wcs = ud.poll(2, 10_000);
                    final WorkCompletion echo = wcs.stream().filter(wc -> wc.opcode() == WcOpcode.RECV).findFirst()
                        .orElseThrow(() -> new AssertionError("no UD echo: " + wcs));
                    assertEquals("ud " + i, ud.text(echo));
                }
                for (int i = 0; i < 10; i++)
                {
                    rc.qp.postRecv(new RecvWr().wrId(i).sge(rc.mr, 32_768, 1024));
                    fill(rc.buffer, 0, 1000, i);
                    rc.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                        .sge(rc.mr, 0, 1000));
                    assertEquals(WcStatus.SUCCESS, one(rc.pollSend(1, 10_000), "rc send " + i).status());
                    assertEquals(1000, one(rc.pollRecv(1, 10_000), "rc echo " + i).byteLen());
                    assertArrayEquals(bytes(rc.buffer, 0, 1000), bytes(rc.buffer, 32_768, 1000));
                }

                assertTrue(rc.counter(SoftCounter.SHM_SENT_PKTS) >= 20);
                assertTrue(rc.counter(SoftCounter.SHM_RCVD_PKTS) >= 20);
                assertEquals(0, rc.counter(SoftCounter.UDP_SENT_PKTS));
                assertEquals(0, rc.counter(SoftCounter.UDP_RCVD_PKTS));
                out.close();
                final String[] counters = lines.readLine().split(" ");
                assertEquals("COUNTERS", counters[0]);
                assertTrue(Long.parseLong(counters[1]) >= 20, "the peer's shm_sent_pkts " + counters[1]);
                assertTrue(Long.parseLong(counters[2]) >= 20, "the peer's shm_rcvd_pkts " + counters[2]);
                assertEquals("0", counters[3], "the peer's udp_sent_pkts");
                assertEquals("0", counters[4], "the peer's udp_rcvd_pkts");
            }
            finally
            {
                ((SoftDevice)context.device()).shutdown();
            }
        }
        finally
        {
            stop(peer);
        }
    }

    @Test
    void aKilledPeerSendsItsSendersBackToUdpAndItsFileIsRemoved() throws Exception
    {
        final InetAddress own = address(3);
        final InetAddress other = address(4);
        final Path otherInbox = ShmDirectory.open(TestLinks.shmDirectory())
            .inbox(other.getHostAddress(), SameHostLink.ROCE_V2_PORT);
        final Process peer = start(other);
        final Context context;
        final UdEndpoint ud;
        try (BufferedReader lines = reader(peer); PrintStream out = new PrintStream(peer.getOutputStream(), true,
            StandardCharsets.US_ASCII))
        {
            final String[] ready = lines.readLine().split(" ");
            context = SoftDevice.builder("survivor", own).sameHost(true).build().open();
            ud = new UdEndpoint(context);
            out.println("PEER " + own.getHostAddress() + " " + ud.qp.qpNum() + " 1");
            assertEquals("CONNECTED", lines.readLine());
            ud.postRecvs(1);
            final AddressHandle toPeer = ud.ahTo(Gid.fromInet(other));
            final int peerQpn = Integer.parseInt(ready[1]);
            ud.send(toPeer, peerQpn, UdEndpoint.QKEY, "still there?", 1);
            assertEquals(2, ud.poll(2, 10_000).size());
            assertEquals(1, ud.counter(SoftCounter.SHM_SENT_PKTS));
            assertTrue(Files.exists(otherInbox));
            // the connection manager's once-a-second look asks per peer first: one look for all its connections
            final SoftEngine engine = SoftEngine.of(context);
            assertFalse(engine.anyPeerProcessGone(), "the peer runs");

            peer.destroyForcibly();
            assertTrue(peer.waitFor(10, TimeUnit.SECONDS));
            try
            {
                final long asked = System.nanoTime() + 10_000_000_000L;
                while (!engine.anyPeerProcessGone() && System.nanoTime() < asked)
                {
                    // the answer of the look before the kill stands for half a second
                    Thread.onSpinWait();
                }
                assertTrue(engine.anyPeerProcessGone(), "the peer's process is gone");
                // the dead process's heartbeat ages; a sender notices within STALE_MS (2 s) and asks for its pid
                final long deadline = System.nanoTime() + 10_000_000_000L;
                while (ud.counter(SoftCounter.SHM_PEER_GONE) == 0 && System.nanoTime() < deadline)
                {
                    ud.send(toPeer, peerQpn, UdEndpoint.QKEY, "anyone?", 2);
                    ud.poll(1, 10_000);
                }
                assertEquals(1, ud.counter(SoftCounter.SHM_PEER_GONE));
                final long viaUdp = ud.counter(SoftCounter.UDP_SENT_PKTS);
                final long failures = ud.counter(SoftCounter.UDP_SEND_FAILURES);
                ud.send(toPeer, peerQpn, UdEndpoint.QKEY, "anyone?", 3);
                ud.poll(1, 10_000);
                // the completion comes once the datagram is queued; its flush and count may come a moment later
                TestVerbs.awaitAtLeast(() -> ud.counter(SoftCounter.UDP_SENT_PKTS)
                    + ud.counter(SoftCounter.UDP_SEND_FAILURES) - failures, viaUdp + 1);
                assertEquals(viaUdp + 1, ud.counter(SoftCounter.UDP_SENT_PKTS));
                assertTrue(ud.counter(SoftCounter.SHM_SENT_PKTS) >= 1);

                // the next device to start on this host removes what the dead process left
                assertTrue(Files.exists(otherInbox));
                final Context next = SoftDevice.builder("next", address(5)).sameHost(true).build().open();
                ((SoftDevice)next.device()).shutdown();
                assertFalse(Files.exists(otherInbox));
            }
            finally
            {
                ((SoftDevice)context.device()).shutdown();
            }
        }
        finally
        {
            stop(peer);
            Files.deleteIfExists(otherInbox);
        }
    }

    /** Move an RC QP to RTS towards a peer QP of another process; both sides start at PSN 0. */
    static void connect(final RcEndpoint endpoint, final Gid peer, final int peerQpn)
    {
        endpoint.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1)
            .accessFlags(RcEndpoint.ALL_REMOTE));
        endpoint.qp.modify(new QpAttr().state(QpState.RTR).ahAttr(AhAttr.global(peer, 64)).pathMtu(Mtu.MTU_1024)
            .destQpNum(peerQpn).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(1));
        endpoint.qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7)
            .maxRdAtomic(1));
    }

    private static InetAddress address(final int host)
    {
        return TestNet.address(SUBNET, host);
    }

    private static Process start(final InetAddress address) throws Exception
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // the peer shares this JVM's inbox directory (the build gives the tests one of their own)
        return new ProcessBuilder(java, "-D" + SoftSettings.SHM_DIR.property() + "=" + TestLinks.shmDirectory(),
            "-cp", System.getProperty("java.class.path"), SameHostPeer.class.getName(), address.getHostAddress())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    }

    private static BufferedReader reader(final Process process)
    {
        return new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
    }

    private static void stop(final Process process) throws InterruptedException
    {
        if (!process.waitFor(10, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
        }
    }
}
