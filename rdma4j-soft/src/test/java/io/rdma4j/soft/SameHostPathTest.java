package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.link.ForwardingLink;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.link.SameHostLink;
import io.rdma4j.soft.link.ShmDirectory;
import io.rdma4j.soft.link.TestLinks;
import io.rdma4j.soft.link.UdpLink;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Mtu;
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

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import static io.rdma4j.soft.RcFixtures.HALF;
import static io.rdma4j.soft.RcFixtures.MIB;
import static io.rdma4j.soft.RcFixtures.bytes;
import static io.rdma4j.soft.RcFixtures.fill;
import static io.rdma4j.soft.RcFixtures.one;
import static io.rdma4j.soft.RcFixtures.pair;
import static io.rdma4j.soft.TestVerbs.awaitAtLeast;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two devices of one JVM on loopback addresses, with the same-host path: their unicast traffic goes through
 * each other's inboxes, never the socket, and every way the path can fail (receiver closed, inbox full,
 * receiver waiting in its selector, a foreign or damaged file) ends in a counted fallback or loss.
 */
@Timeout(60)
class SameHostPathTest
{
    @Test
    void udMessagesBothWaysTakeTheInboxesAndNotTheSocket()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.SHM))
        {
            final UdEndpoint a = new UdEndpoint(fabric.open());
            final UdEndpoint b = new UdEndpoint(fabric.open());
            a.postRecvs(20);
            b.postRecvs(20);
            final AddressHandle toB = a.ahTo(b.gid());
            final AddressHandle toA = b.ahTo(a.gid());
            for (int i = 0; i < 20; i++)
            {
                a.send(toB, b.qp.qpNum(), UdEndpoint.QKEY, "a to b " + i, i);
                b.send(toA, a.qp.qpNum(), UdEndpoint.QKEY, "b to a " + i, i);
            }
            for (final UdEndpoint side : new UdEndpoint[] {a, b})
            {
                // 20 sends and 20 receives on the one CQ
                final List<WorkCompletion> wcs = side.poll(40, 10_000);
                assertEquals(20, wcs.stream().filter(wc -> wc.opcode() == WcOpcode.RECV).count());
                assertTrue(wcs.stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS));
            }

            for (final UdEndpoint side : new UdEndpoint[] {a, b})
            {
                awaitAtLeast(() -> side.counter(SoftCounter.SHM_RCVD_PKTS), 20);
                assertEquals(20, side.counter(SoftCounter.SHM_SENT_PKTS));
                awaitAtLeast(() -> side.counter(SoftCounter.SENT_PKTS), 20);
                assertEquals(20, side.counter(SoftCounter.SENT_PKTS));
                assertEquals(0, side.counter(SoftCounter.UDP_SENT_PKTS));
                assertEquals(0, side.counter(SoftCounter.UDP_RCVD_PKTS));
                // what came through the inbox passed the same checks, ICRC included, as a UDP datagram
                assertEquals(20, side.counter(SoftCounter.RCVD_PKTS));
                assertEquals(0, side.counter(SoftCounter.DROP_ICRC));
            }
        }
    }

    @Test
    void rcWritesAndSendsTakeTheInboxesWithoutANak()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.SHM))
        {
            // a retransmit timeout of 268 ms: on a loaded machine a shorter one fires on either path
            final RcEndpoint[] p = pair(fabric, QpType.RC, Mtu.MTU_4096, 16);
            final RcEndpoint a = p[0];
            final RcEndpoint b = p[1];
            for (int i = 0; i < 8; i++)
            {
                final int size = i * 77_777 + 1;
                fill(a.buffer, 0, size, i);
                a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sge(a.mr, 0, size).rdma(b.mr.segment().address() + HALF, b.mr.rkey()));
                assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 20_000), "write " + size).status());
                assertArrayEquals(bytes(a.buffer, 0, size), bytes(b.buffer, HALF, size), "write " + size);

                b.qp.postRecv(new RecvWr().wrId(100 + i).sge(b.mr, 0, MIB));
                a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sge(a.mr, 0, Math.min(size, MIB)));
                assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 20_000), "send " + size).status());
                assertEquals(Math.min(size, MIB), one(b.pollRecv(1, 20_000), "recv " + size).byteLen());
            }
            for (final RcEndpoint side : p)
            {
                assertTrue(side.counter(SoftCounter.SHM_SENT_PKTS) > 0);
                assertEquals(0, side.counter(SoftCounter.UDP_SENT_PKTS));
                assertEquals(0, side.counter(SoftCounter.UDP_RCVD_PKTS));
                assertEquals(0, side.counter(SoftCounter.SENT_NAKS));
                assertEquals(0, side.counter(SoftCounter.RCVD_SEQ_ERR));
                assertEquals(0, side.counter(SoftCounter.OUT_OF_SEQ_REQUEST));
                assertEquals(0, side.counter(SoftCounter.SHM_RING_FULL));
            }
        }
    }

    @Test
    void aFullInboxIsACountedLossThatRcRecoversFrom()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.SHM))
        {
            final Gate[] gates = new Gate[2];
            final int[] opened = {0};
            fabric.linkWrapper(link -> gates[opened[0]++] = new Gate(link));
            final RcEndpoint[] p = pair(fabric, QpType.RC, Mtu.MTU_4096, 8);
            final RcEndpoint a = p[0];
            final RcEndpoint b = p[1];
            final UdEndpoint filler = new UdEndpoint(a.context);
            final UdEndpoint sink = new UdEndpoint(b.context);
            final AddressHandle toB = filler.ahTo(sink.gid());

            gates[1].closed = true;
            // b reads nothing now: 4 KiB datagrams fill its 4 MiB inbox
            final String big = "x".repeat(4000);
            for (int i = 0; i < 2000 && a.counter(SoftCounter.SHM_RING_FULL) == 0; i++)
            {
                filler.send(toB, sink.qp.qpNum(), UdEndpoint.QKEY, big, i);
                filler.poll(1, 5000);
            }
            assertTrue(a.counter(SoftCounter.SHM_RING_FULL) > 0, "the inbox never filled");

            final long fullBefore = a.counter(SoftCounter.SHM_RING_FULL);
            b.qp.postRecv(new RecvWr().wrId(9).sge(b.mr, 0, 4096));
            fill(a.buffer, 0, 4096, 99);
            a.qp.postSend(new SendWr().wrId(9).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(a.mr, 0, 4096));
            awaitAtLeast(() -> a.counter(SoftCounter.SHM_RING_FULL), fullBefore + 1);
            assertTrue(a.counter(SoftCounter.DROP_LINK_SEND) >= a.counter(SoftCounter.SHM_RING_FULL));

            gates[1].closed = false;
            b.engine().wakeup();
            assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 30_000), "send after the inbox drained").status());
            assertEquals(4096, one(b.pollRecv(1, 30_000), "recv").byteLen());
            assertArrayEquals(bytes(a.buffer, 0, 4096), bytes(b.buffer, 0, 4096));
            assertTrue(a.counter(SoftCounter.RETRANSMITTED_PKTS) > 0);
            assertEquals(0, a.counter(SoftCounter.UDP_SENT_PKTS));
        }
    }

    @Test
    void aClosedReceiverSendsItsSendersBackToUdpAndItsSuccessorIsFound()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.SHM))
        {
            final UdEndpoint a = new UdEndpoint(fabric.open());
            final Context first = fabric.open();
            final InetAddress address = SoftEngine.of(first).link().localAddress();
            final UdEndpoint b = new UdEndpoint(first);
            b.postRecvs(1);
            a.send(a.ahTo(b.gid()), b.qp.qpNum(), UdEndpoint.QKEY, "to the first", 1);
            assertEquals(2, b.poll(1, 10_000).size() + a.poll(1, 10_000).size());
            assertEquals(1, a.counter(SoftCounter.SHM_SENT_PKTS));

            ((SoftDevice)first.device()).shutdown();
            final AddressHandle toAddress = a.ahTo(b.gid());
            a.send(toAddress, b.qp.qpNum(), UdEndpoint.QKEY, "to nobody", 2);
            a.poll(1, 10_000);
            awaitUdpOutcomes(a, 1);
            assertEquals(1, a.counter(SoftCounter.SHM_PEER_GONE));
            assertEquals(1, a.counter(SoftCounter.UDP_SENT_PKTS));
            assertEquals(1, a.counter(SoftCounter.SHM_SENT_PKTS));

            // a new device takes the address: the sender finds its inbox
            final Context second = SoftDevice.builder("successor", address)
                .link(x -> SameHostLink.over(new UdpLink(x), TestLinks.shmDirectory(), System.getLogger("test")))
                .build().open();
            fabric.adopt(second);
            final UdEndpoint c = new UdEndpoint(second);
            // the address had no inbox a moment ago, which the sender remembers for a second: until then
            // it sends by UDP, which the successor reads as well
            final long deadline = System.nanoTime() + 10_000_000_000L;
            int sent = 0;
            while (a.counter(SoftCounter.SHM_SENT_PKTS) < 2 && System.nanoTime() < deadline)
            {
                c.postRecvs(1);
                a.send(toAddress, c.qp.qpNum(), UdEndpoint.QKEY, "to the second " + sent, 3);
                a.poll(1, 10_000);
                final List<WorkCompletion> got = c.poll(1, 10_000);
                assertEquals(1, got.size());
                assertEquals("to the second " + sent, c.text(got.getFirst()));
                sent++;
            }
            assertEquals(2, a.counter(SoftCounter.SHM_SENT_PKTS));
            assertEquals(1, c.counter(SoftCounter.SHM_RCVD_PKTS));
            assertEquals(sent - 1, c.counter(SoftCounter.UDP_RCVD_PKTS));
        }
    }

    @Test
    void aReceiverWaitingInItsSelectorIsWokenOncePerWait()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.SHM))
        {
            final UdEndpoint a = new UdEndpoint(fabric.open());
            final UdEndpoint b = new UdEndpoint(fabric.open());
            final SameHostLink bLink = (SameHostLink)SoftEngine.of(b.context).link();
            b.postRecvs(5);
            final AddressHandle toB = a.ahTo(b.gid());
            for (int i = 0; i < 5; i++)
            {
                // b's progress thread has nothing to do (UD arms no timer): it waits in its selector
                final long deadline = System.nanoTime() + 10_000_000_000L;
                while (!bLink.waiting() && System.nanoTime() < deadline)
                {
                    Thread.onSpinWait();
                }
                assertTrue(bLink.waiting(), "b's progress thread never waited");
                a.send(toB, b.qp.qpNum(), UdEndpoint.QKEY, "wake up " + i, i);
                a.poll(1, 10_000);
                final List<WorkCompletion> got = b.poll(1, 10_000);
                assertEquals(1, got.size());
                assertEquals("wake up " + i, b.text(got.getFirst()));
            }
            final long sent = a.counter(SoftCounter.SHM_WAKEUPS_SENT);
            assertTrue(sent >= 1 && sent <= 5, sent + " wake-ups for 5 datagrams");
            awaitAtLeast(() -> b.counter(SoftCounter.SHM_WAKEUPS_RCVD), sent);
            assertEquals(5, a.counter(SoftCounter.SHM_SENT_PKTS));
            assertEquals(0, a.counter(SoftCounter.UDP_SENT_PKTS));
            assertEquals(0, b.counter(SoftCounter.UDP_RCVD_PKTS));
        }
    }

    @Test
    void foreignFilesInTheDirectoryAreRefusedWithTheirReason() throws IOException
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.SHM))
        {
            final UdEndpoint a = new UdEndpoint(fabric.open());
            final ShmDirectory directory = ShmDirectory.open(TestLinks.shmDirectory());
            final InetAddress badMode = fabric.address(201);
            final InetAddress garbage = fabric.address(202);
            final InetAddress link = fabric.address(203);
            final InetAddress dead = fabric.address(204);
            final InetAddress foreign = fabric.address(205);
            final Path badModePath = directory.inbox(badMode.getHostAddress(), Link.ROCE_V2_PORT);
            final Path garbagePath = directory.inbox(garbage.getHostAddress(), Link.ROCE_V2_PORT);
            final Path linkPath = directory.inbox(link.getHostAddress(), Link.ROCE_V2_PORT);
            final Path deadPath = directory.inbox(dead.getHostAddress(), Link.ROCE_V2_PORT);
            final Path foreignPath = directory.inbox(foreign.getHostAddress(), Link.ROCE_V2_PORT);
            // only root can give a file to another user: elsewhere the link above stands for that case
            final boolean root = (Integer)Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
            final Path template = ((SameHostLink)SoftEngine.of(a.context).link()).inboxPath();
            try
            {
                // a real inbox's bytes, readable by others
                Files.copy(template, badModePath);
                Files.setPosixFilePermissions(badModePath, PosixFilePermissions.fromString("rw-rw-rw-"));
                // random bytes, owner only
                final byte[] noise = new byte[(int)Files.size(template)];
                new java.util.Random(7).nextBytes(noise);
                Files.write(garbagePath, noise);
                Files.setPosixFilePermissions(garbagePath, PosixFilePermissions.fromString("rw-------"));
                // a link to a real inbox
                Files.createSymbolicLink(linkPath, template);
                // an inbox of the right shape for its address, but left by a process that is gone
                Files.copy(template, deadPath);
                Files.setPosixFilePermissions(deadPath, PosixFilePermissions.fromString("rw-------"));
                forgeInbox(deadPath, dead, Long.MAX_VALUE / 2);
                if (root)
                {
                    // a real inbox for its address, of another user
                    Files.copy(template, foreignPath);
                    Files.setPosixFilePermissions(foreignPath, PosixFilePermissions.fromString("rw-------"));
                    forgeInbox(foreignPath, foreign, ProcessHandle.current().pid());
                    Files.setAttribute(foreignPath, "unix:uid", 65534);
                }

                final InetAddress[] destinations = root ? new InetAddress[] {badMode, garbage, link, dead, foreign} :
                    new InetAddress[] {badMode, garbage, link, dead};
                for (final InetAddress destination : destinations)
                {
                    a.send(a.ahTo(io.rdma4j.verbs.Gid.fromInet(destination)), 0x123, UdEndpoint.QKEY, "hello", 1);
                    assertEquals(1, a.poll(1, 5000).size());
                }
                awaitUdpOutcomes(a, destinations.length);
                assertEquals(1, a.counter(SoftCounter.SHM_REFUSED_MODE));
                assertEquals(1, a.counter(SoftCounter.SHM_REFUSED_FORMAT));
                assertEquals(root ? 2 : 1, a.counter(SoftCounter.SHM_REFUSED_OWNER));
                assertEquals(1, a.counter(SoftCounter.SHM_REFUSED_DEAD));
                assertEquals(0, a.counter(SoftCounter.SHM_SENT_PKTS));
                // loopback answers each with "port unreachable", which fails a later send once or more: none lost
                assertEquals(0, a.counter(SoftCounter.UDP_SEND_FAILURES));
                assertEquals(destinations.length, a.counter(SoftCounter.UDP_SENT_PKTS));
            }
            finally
            {
                for (final Path path : new Path[] {badModePath, garbagePath, linkPath, deadPath, foreignPath})
                {
                    Files.deleteIfExists(path);
                }
            }
        }
    }

    /**
     * An inbox of the format before this one (r4jshm02), whose reader waits without looking for a record still
     * being written, so that a sender of this format, whose publishing store does not order its look at the
     * parked flag, could leave it asleep: refused, and the datagram goes by UDP.
     */
    @Test
    void anInboxOfTheFormatBeforeIsRefused() throws IOException
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.SHM))
        {
            final UdEndpoint a = new UdEndpoint(fabric.open());
            final InetAddress older = fabric.address(206);
            final Path olderPath = ShmDirectory.open(TestLinks.shmDirectory())
                .inbox(older.getHostAddress(), Link.ROCE_V2_PORT);
            final Path template = ((SameHostLink)SoftEngine.of(a.context).link()).inboxPath();
            try
            {
                // a live process's inbox for its address in every other respect
                Files.copy(template, olderPath);
                Files.setPosixFilePermissions(olderPath, PosixFilePermissions.fromString("rw-------"));
                forgeInbox(olderPath, older, ProcessHandle.current().pid());
                try (FileChannel channel = FileChannel.open(olderPath, StandardOpenOption.READ,
                    StandardOpenOption.WRITE))
                {
                    channel.write(ByteBuffer.wrap("r4jshm02".getBytes(java.nio.charset.StandardCharsets.US_ASCII)), 0);
                }

                a.send(a.ahTo(io.rdma4j.verbs.Gid.fromInet(older)), 0x123, UdEndpoint.QKEY, "hello", 1);
                assertEquals(1, a.poll(1, 5000).size());
                awaitUdpOutcomes(a, 1);
                assertEquals(1, a.counter(SoftCounter.SHM_REFUSED_FORMAT));
                assertEquals(0, a.counter(SoftCounter.SHM_SENT_PKTS));
                assertEquals(1, a.counter(SoftCounter.UDP_SENT_PKTS));
            }
            finally
            {
                Files.deleteIfExists(olderPath);
            }
        }
    }

    @Test
    void aDamagedInboxIsReplacedAndTheSendersFindTheNewOne() throws IOException
    {
        // a record at b's head with a length no sender writes
        replacedAfter(file ->
        {
            final long head = file.get(ValueLayout.JAVA_LONG, 256 + 128);
            final long at = 512 + (head & ((4 << 20) - 1));
            file.set(ValueLayout.JAVA_INT, at + 4, 1);
            file.set(ValueLayout.JAVA_INT, at, 0x7FFF_FFF0);
        });
    }

    /**
     * A writer that claims space (moves the tail) and dies before publishing leaves the receiver an inbox it can
     * never read past: after a second of it, the receiver replaces the inbox, which it notices only on some of
     * its reads of an empty inbox (the look reads the senders' tail) and on the first read after each wait.
     */
    @Test
    void anInboxWhoseWriterDiedMidRecordIsReplaced() throws IOException
    {
        // a claim of 64 bytes at b's tail, never published
        final long nanos = replacedAfter(file -> file.set(ValueLayout.JAVA_LONG, 256,
            file.get(ValueLayout.JAVA_LONG, 256) + 64));
        assertTrue(nanos >= 900_000_000L, "replaced before the stall could have lasted 1 s: " + nanos + " ns");
    }

    /**
     * Damage b's inbox file after one datagram came through it, wait for b to replace it, and send through the
     * new one.
     *
     * @return nanoseconds from the damage to the replacement.
     */
    private static long replacedAfter(final Consumer<MemorySegment> damage) throws IOException
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.SHM))
        {
            final UdEndpoint a = new UdEndpoint(fabric.open());
            final UdEndpoint b = new UdEndpoint(fabric.open());
            final SameHostLink bLink = (SameHostLink)SoftEngine.of(b.context).link();
            b.postRecvs(2);
            final AddressHandle toB = a.ahTo(b.gid());
            a.send(toB, b.qp.qpNum(), UdEndpoint.QKEY, "before", 1);
            assertEquals(1, b.poll(1, 10_000).size());

            try (FileChannel channel = FileChannel.open(bLink.inboxPath(), StandardOpenOption.READ,
                StandardOpenOption.WRITE))
            {
                damage.accept(channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), Arena.ofAuto()));
            }
            final long start = System.nanoTime();
            awaitAtLeast(() -> b.counter(SoftCounter.SHM_INBOX_CORRUPT), 1);
            final long nanos = System.nanoTime() - start;

            a.send(toB, b.qp.qpNum(), UdEndpoint.QKEY, "after", 2);
            final List<WorkCompletion> got = b.poll(1, 10_000);
            assertEquals(1, got.size());
            assertEquals("after", b.text(got.getFirst()));
            assertEquals(1, a.counter(SoftCounter.SHM_PEER_GONE));
            assertEquals(2, a.counter(SoftCounter.SHM_SENT_PKTS));
            assertEquals(2, b.counter(SoftCounter.SHM_RCVD_PKTS));
            assertNotNull(bLink.inboxPath());
            return nanos;
        }
    }

    @Test
    void aTruncatedInboxFaultsNeitherSideAndIsReplaced() throws IOException
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.SHM))
        {
            final UdEndpoint a = new UdEndpoint(fabric.open());
            final UdEndpoint b = new UdEndpoint(fabric.open());
            final SameHostLink bLink = (SameHostLink)SoftEngine.of(b.context).link();
            b.postRecvs(3);
            final AddressHandle toB = a.ahTo(b.gid());
            a.send(toB, b.qp.qpNum(), UdEndpoint.QKEY, "before", 1);
            assertEquals(1, b.poll(1, 10_000).size());

            // another process of the user truncates b's inbox under both mappings: a write or a read there is
            // a SIGBUS, which must reach neither a's postSend nor b's progress thread
            try (FileChannel channel = FileChannel.open(bLink.inboxPath(), StandardOpenOption.WRITE))
            {
                channel.truncate(0);
            }
            a.send(toB, b.qp.qpNum(), UdEndpoint.QKEY, "during", 2);
            final List<WorkCompletion> during = b.poll(1, 10_000);
            assertEquals(1, during.size());
            assertEquals("during", b.text(during.getFirst()));
            awaitAtLeast(() -> b.counter(SoftCounter.SHM_INBOX_CORRUPT), 1);

            a.send(toB, b.qp.qpNum(), UdEndpoint.QKEY, "after", 3);
            final List<WorkCompletion> after = b.poll(1, 10_000);
            assertEquals("after", b.text(after.getFirst()));
            assertEquals(1, b.counter(SoftCounter.SHM_INBOX_CORRUPT), "replaced once, no spin");
            assertTrue(Files.size(bLink.inboxPath()) > 0, "a whole inbox under the name again");
            assertEquals(0, a.counter(SoftCounter.PROGRESS_ERRORS));
            assertEquals(0, b.counter(SoftCounter.PROGRESS_ERRORS));
        }
    }

    /**
     * The same truncation under a receiver whose CQ is polled (polling mode): the polling thread reads the inbox
     * and the progress thread, parked meanwhile, beats its heartbeat, so both fault on the truncated file at
     * about the same time. Before, each renewed the inbox: the second fresh file replaced the first under the
     * name, the sender could map the first and write into a ring nobody read, and rc_pingpong stopped (seen
     * in the audit: the receiver's rcvd_pkts stood still, the sender's RC retransmitted for ever). Now an inbox
     * is renewed once per fault, whichever thread sees it first, and the messages go on, round after round.
     */
    @Test
    void aTruncatedInboxUnderAPolledCqIsReplacedOnceAndTheSenderFollows() throws IOException
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.SHM).pollsInline(true))
        {
            final UdEndpoint a = new UdEndpoint(fabric.open());
            final UdEndpoint b = new UdEndpoint(fabric.open());
            final SameHostLink bLink = (SameHostLink)SoftEngine.of(b.context).link();
            final int rounds = 20;
            b.postRecvs(rounds + 1);
            final AddressHandle toB = a.ahTo(b.gid());
            a.send(toB, b.qp.qpNum(), UdEndpoint.QKEY, "before", 0);
            assertEquals(1, b.poll(1, 10_000).size());
            for (int round = 1; round <= rounds; round++)
            {
                try (FileChannel channel = FileChannel.open(bLink.inboxPath(), StandardOpenOption.WRITE))
                {
                    channel.truncate(0);
                }
                // a's write faults and goes by UDP; b's poller finds the fault while the progress thread beats
                a.send(toB, b.qp.qpNum(), UdEndpoint.QKEY, "round " + round, round);
                final List<WorkCompletion> got = b.poll(1, 10_000);
                assertEquals(1, got.size(), "round " + round + ": the message was lost");
                assertEquals("round " + round, b.text(got.getFirst()));
                assertEquals(round, b.counter(SoftCounter.SHM_INBOX_CORRUPT), "round " + round + ": renewals");
            }
            assertEquals(0, b.counter(SoftCounter.PROGRESS_ERRORS));
        }
    }

    /** Point a copied inbox at another address and at a pid that does not run. */
    private static void forgeInbox(final Path path, final InetAddress address, final long pid) throws IOException
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final MemorySegment file = channel.map(FileChannel.MapMode.READ_WRITE, 0, 512, Arena.ofAuto());
            file.set(ValueLayout.JAVA_LONG, 8, pid);
            file.set(ValueLayout.JAVA_INT, 32, io.rdma4j.soft.link.Ipv4.toInt(address));
        }
    }

    /** Hides the device's datagrams from it while closed, as a receiver that stopped reading. */
    private static final class Gate extends ForwardingLink
    {
        volatile boolean closed;

        Gate(final Link inner)
        {
            super(inner);
        }

        @Override
        public boolean receive(final ByteBuffer buffer, final DatagramInfo info)
        {
            if (closed)
            {
                buffer.limit(0);
                return false;
            }
            return inner.receive(buffer, info);
        }

        @Override
        public void awaitReadable(final long timeoutNanos)
        {
            if (closed)
            {
                // the inbox holds records, which would end every wait at once
                LockSupport.parkNanos(Math.min(timeoutNanos, 1_000_000));
                return;
            }
            inner.awaitReadable(timeoutNanos);
        }
    }

    /**
     * Wait until {@code datagrams} UDP sends have ended, sent or refused: a UD send completes once its datagram
     * is queued, and the flush (with its count) may be the progress thread's, a moment behind the completion.
     */
    private static void awaitUdpOutcomes(final UdEndpoint side, final long datagrams)
    {
        awaitAtLeast(() -> side.counter(SoftCounter.UDP_SENT_PKTS) + side.counter(SoftCounter.UDP_SEND_FAILURES),
            datagrams);
    }
}
