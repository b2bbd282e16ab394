package io.rdma4j.soft.link.linux;

import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.soft.link.UdpLink;
import io.rdma4j.soft.wire.TestIcrc;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.PacketBuilder;
import io.rdma4j.soft.wire.PacketInfo;

import io.rdma4j.testing.TestNet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the Linux socket adds to the link contract {@code UdpLinkTest} checks on both sockets: batches of
 * datagrams per system call, UDP GSO and GRO, and identification 0 on the wire, as the ICRC assumes.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class LinuxUdpLinkTest
{
    private static final int SUBNET = TestNet.nextSubnet();

    private static final long WAIT_MILLIS = 5_000;
    private static final int PAYLOAD = 1024;

    private final InetAddress addressA = TestNet.address(SUBNET, 2);
    private final InetAddress addressB = TestNet.address(SUBNET, 3);
    private final InetAddress addressC = TestNet.address(SUBNET, 4);
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(65536);
    private final DatagramInfo info = new DatagramInfo();
    private final PacketBuilder builder = new PacketBuilder();
    private final TestIcrc icrc = new TestIcrc();
    private int port;

    @BeforeEach
    void before()
    {
        assertNull(LinuxUdpLink.unavailableReason(), "these tests run where the Linux socket loads");
        try (DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            channel.bind(new InetSocketAddress(address("127.0.0.1"), 0));
            port = ((InetSocketAddress)channel.getLocalAddress()).getPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    @Test
    void shouldCarryAQueueInOneSendmmsgAndReceiveItInOneRecvmmsg()
    {
        try (LinuxUdpLink a = new LinuxUdpLink(addressA, port, false);
            LinuxUdpLink b = new LinuxUdpLink(addressB, port, false))
        {
            for (int i = 0; i < 10; i++)
            {
                assertTrue(a.queue(packet(i, PAYLOAD, a), addressB, 64));
            }
            assertEquals(0, a.sendSyscalls(), "queued, not sent");
            a.flush();
            assertEquals(1, a.sendSyscalls());
            assertEquals(10, a.sentDatagrams());

            // loopback delivers within the send call: all ten wait on b's socket for one recvmmsg
            for (int i = 0; i < 10; i++)
            {
                assertTrue(b.receive(buffer, info), "datagram " + i);
                assertEquals(i, psn(buffer));
                assertEquals(addressA, info.source);
                assertEquals(Ipv4.toInt(addressA), info.sourceIpv4);
                assertEquals(port, info.sourcePort);
                assertEquals(addressB, info.destination);
            }
            assertEquals(1, b.receiveSyscalls());
            assertEquals(10, b.receivedDatagrams());
        }
    }

    @Test
    void shouldSayWhenItHandedOutAllItsSocketHeld()
    {
        try (LinuxUdpLink a = new LinuxUdpLink(addressA, port, false);
            LinuxUdpLink b = new LinuxUdpLink(addressB, port, false))
        {
            assertFalse(b.receive(buffer, info), "nothing sent yet");
            // a datagram after an empty look comes alone, as a busy poller's does: one look, and caught up
            assertTrue(a.send(packet(0, PAYLOAD, a), addressB, 64));
            assertTrue(b.receive(buffer, info));
            assertTrue(b.caughtUp(), "a one-datagram look after an empty one");
            assertEquals(1, b.receiveSyscalls());

            // then a backlog: a full batch, which may have left more, then the rest in a batch that asked for more
            final int backlog = ReceiveBatch.RX_SLOTS + 8;
            for (int i = 1; i <= backlog; i++)
            {
                assertTrue(a.queue(packet(i, PAYLOAD, a), addressB, 64));
            }
            a.flush();
            for (int i = 1; i <= backlog; i++)
            {
                assertTrue(b.receive(buffer, info));
                assertEquals(i, psn(buffer));
                assertEquals(i == backlog, b.caughtUp(), "caught up once the short batch is handed out: " + i);
            }
            assertEquals(3, b.receiveSyscalls(), "one datagram, then a full batch and 8");
            assertFalse(b.receive(buffer, info));

            // a burst of two (an RC peer's ACK and SEND): after the empty look, the next asks for two and takes
            // them as all there is; a third, which came in the same burst, is the next look's
            sendBurst(a, 100, 2);
            assertTrue(b.receive(buffer, info));
            assertFalse(b.caughtUp());
            assertTrue(b.receive(buffer, info));
            assertTrue(b.caughtUp(), "a batch that asked for a full batch and got two");
            assertFalse(b.receive(buffer, info));
            sendBurst(a, 200, 3);
            assertTrue(b.receive(buffer, info));
            assertEquals(200, psn(buffer));
            assertFalse(b.caughtUp());
            assertTrue(b.receive(buffer, info));
            assertTrue(b.caughtUp(), "the look after an empty one asked for the last burst's two, and got them");
            assertTrue(b.receive(buffer, info), "the guess was short: the third waits for the next look");
            assertEquals(202, psn(buffer));
            assertTrue(b.caughtUp());
            assertEquals(6, b.receiveSyscalls());
        }
    }

    private void sendBurst(final LinuxUdpLink from, final int firstPsn, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            assertTrue(from.queue(packet(firstPsn + i, PAYLOAD, from), addressB, 64));
        }
        from.flush();
    }

    /**
     * The run goes in one {@code sendmsg} (a flush of one message), and arrives by a {@code recvmmsg} for a full
     * batch or, after an empty look (a busy poller's case), by a {@code recvmsg} for one: either way the slot's
     * GRO segment size splits it.
     */
    @ParameterizedTest(name = "after an empty look: {0}")
    @ValueSource(booleans = {false, true})
    void shouldSendAnAckAndTheLongerRequestBehindItAsOneRunAndHandTheAckOverFirst(final boolean afterAnEmptyLook)
    {
        try (LinuxUdpLink a = new LinuxUdpLink(addressA, port, true);
            LinuxUdpLink b = new LinuxUdpLink(addressB, port, true))
        {
            assumeTrue(a.segmentsSends() && b.coalescesReceives(), "the kernel has UDP GSO and GRO");
            if (afterAnEmptyLook)
            {
                assertFalse(b.receive(buffer, info), "nothing sent yet");
            }
            final ByteBuffer ack = ack(7, a);
            final byte[] ackBytes = bytes(ack);
            final ByteBuffer request = packet(40, 64, a);
            final byte[] requestBytes = bytes(request);
            assertTrue(a.queue(ack, addressB, 64));
            assertTrue(a.queue(request, addressB, 64));
            a.flush();
            assertEquals(1, a.sendSyscalls());
            assertEquals(1, a.gsoMessages(), "the request, then the ACK as the run's shorter last segment");
            assertEquals(2, a.sentDatagrams());

            assertTrue(receiveWithin(b, WAIT_MILLIS));
            final byte[] first = bytes(buffer);
            assertArrayEquals(java.util.Arrays.copyOf(ackBytes, ackBytes.length - 4),
                java.util.Arrays.copyOf(first, first.length - 4), "the ACK is handed over first, as it was queued");
            // on the wire it was the second segment: its ICRC is for identification 1
            assertEquals(1, icrc.check(MemorySegment.ofArray(first), 0, first.length, Ipv4.toInt(addressA),
                Ipv4.toInt(addressB), port, port, 1, true));
            assertEquals(1, info.ipIdentificationGuess, "the ACK's guess is its place in the run, not the order");
            assertFalse(b.caughtUp(), "the request is still in the slot");
            assertTrue(b.receive(buffer, info));
            final byte[] second = bytes(buffer);
            assertArrayEquals(requestBytes, second);
            assertEquals(0, icrc.check(MemorySegment.ofArray(second), 0, second.length, Ipv4.toInt(addressA),
                Ipv4.toInt(addressB), port, port, 0, true));
            assertEquals(0, info.ipIdentificationGuess);
            assertEquals(1, b.receiveSyscalls(), "one call that received (an empty look counts none)");
            assertEquals(1, b.receivedRuns());
        }
    }

    /** An RC ACK, 20 bytes with its ICRC. */
    private ByteBuffer ack(final int psn, final LinuxUdpLink from)
    {
        final PacketInfo spec = new PacketInfo().clear()
            .opcode(Opcode.RC_ACKNOWLEDGE)
            .destQp(0x12)
            .psn(psn)
            .syndrome(0x1F)
            .msn(3)
            .network(Ipv4.toInt(from.localAddress()), port, Ipv4.toInt(addressB), port, from.ipIdentification());
        final ByteBuffer packet = ByteBuffer.allocateDirect(64);
        final int length = builder.build(spec, 0, MemorySegment.ofBuffer(packet), 0);
        return packet.limit(length);
    }

    @Test
    void shouldReportAPortUnreachableWithoutLosingTheNextDatagramToAnotherPeer()
    {
        final InetAddress nobody = TestNet.address(SUBNET, 9);
        try (LinuxUdpLink a = new LinuxUdpLink(addressA, port, false);
            LinuxUdpLink b = new LinuxUdpLink(addressB, port, false))
        {
            final java.util.List<InetAddress> unreachable = new java.util.ArrayList<>();
            a.unreachableListener(unreachable::add);
            // loopback answers at once with ICMP port unreachable, which IP_RECVERR also turns into an error
            // for the socket's next send: that one, to a live peer, must still leave
            assertTrue(a.send(packet(1, PAYLOAD, a), nobody, 64));
            assertTrue(a.queue(packet(2, PAYLOAD, a), addressB, 64));
            a.flush();
            assertTrue(a.send(packet(3, PAYLOAD, a), nobody, 64));
            assertTrue(a.send(packet(4, PAYLOAD, a), addressB, 64));
            for (final int expected : new int[] {2, 4})
            {
                assertTrue(b.receive(buffer, info), "datagram " + expected);
                assertEquals(expected, psn(buffer));
            }
            assertEquals(0, a.sendFailures(), "nothing was refused");
            // a receive that finds nothing reads the error queue: both refusals, from the address refused
            assertFalse(a.receive(buffer, info));
            assertEquals(java.util.List.of(nobody, nobody), unreachable);
        }
    }

    @Test
    void shouldReceiveTheDatagramWaitingBehindAnIcmpErrorTheReceiveReports()
    {
        final InetAddress nobody = TestNet.address(SUBNET, 9);
        try (LinuxUdpLink a = new LinuxUdpLink(addressA, port, false);
            LinuxUdpLink b = new LinuxUdpLink(addressB, port, false))
        {
            final io.rdma4j.soft.counter.Counters counters = new io.rdma4j.soft.counter.Counters();
            a.bindCounters(counters);
            // the first look reads the error queue, which would clear the error; the next one comes in 10 ms
            assertFalse(a.receive(buffer, info), "nothing sent yet");
            assertTrue(b.send(packet(1, PAYLOAD, b), addressA, 64));
            // loopback answers a datagram to a port nobody has with ICMP port unreachable, which IP_RECVERR turns
            // into an error that fails the socket's next receive once, whether a datagram waits or not
            assertTrue(a.send(packet(2, PAYLOAD, a), nobody, 64));
            awaitSocketError(a);
            assertTrue(a.receive(buffer, info), "the datagram behind the error, in the same receive");
            assertEquals(1, psn(buffer));
            assertEquals(addressB, info.source);
            assertEquals(1, a.receiveSocketErrors(), "the error the receive met, counted");
            assertEquals(1, counters.get(io.rdma4j.soft.counter.SoftCounter.UDP_RECV_SOCKET_ERRORS));
        }
    }

    /** Wait until the link's socket holds an error ({@code POLLERR}), without receiving or reading it. */
    private static void awaitSocketError(final LinuxUdpLink link)
    {
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined())
        {
            final MemorySegment pollFd = arena.allocate(LinuxLibc.POLLFD_BYTES, 8);
            pollFd.set(ValueLayout.JAVA_INT, 0, link.unicastFd());
            // no events asked: poll reports POLLERR, and POLLIN would not end the wait
            pollFd.set(ValueLayout.JAVA_SHORT, 4, (short)0);
            assertEquals(1, LinuxLibc.poll(pollFd, 1, (int)WAIT_MILLIS), "an ICMP error in time");
            assertTrue((pollFd.get(ValueLayout.JAVA_SHORT, 6) & LinuxLibc.POLLERR) != 0);
        }
    }

    @Test
    void shouldCountTheDatagramsTheKernelDroppedForWantOfRoom() throws IOException
    {
        try (LinuxUdpLink b = new LinuxUdpLink(addressB, port, false);
            DatagramChannel sender = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            final io.rdma4j.soft.counter.Counters counters = new io.rdma4j.soft.counter.Counters();
            b.bindCounters(counters);
            sender.bind(new InetSocketAddress(addressA, 0));
            // far more than the receive buffer holds while nobody reads: the kernel drops the rest
            final int sent = 20_000;
            final ByteBuffer datagram = ByteBuffer.allocate(PAYLOAD);
            for (int i = 0; i < sent; i++)
            {
                datagram.clear();
                sender.send(datagram, new InetSocketAddress(addressB, port));
            }
            int received = 0;
            while (b.receive(buffer, info))
            {
                received++;
            }
            // the kernel tells its count with the next datagram it delivers after a drop
            datagram.clear();
            sender.send(datagram, new InetSocketAddress(addressB, port));
            assertTrue(b.receive(buffer, info), "the datagram after the drops");
            received++;
            final long dropped = counters.get(io.rdma4j.soft.counter.SoftCounter.UDP_RCVBUF_DROPS);
            assertTrue(dropped > 0, "the buffer overflowed: " + received + " of " + sent + " received");
            // loopback loses nothing else: every datagram was received or counted
            assertEquals(sent + 1, received + dropped, received + " received, " + dropped + " dropped");
        }
    }

    @Test
    void shouldAskForOneDatagramAfterAnEmptyReceiveAndForTheBacklogAfterThat()
    {
        try (LinuxUdpLink a = new LinuxUdpLink(addressA, port, false);
            LinuxUdpLink b = new LinuxUdpLink(addressB, port, false))
        {
            assertFalse(b.receive(buffer, info), "nothing sent yet");
            for (int i = 0; i < 10; i++)
            {
                assertTrue(a.queue(packet(i, PAYLOAD, a), addressB, 64));
            }
            a.flush();
            for (int i = 0; i < 10; i++)
            {
                assertTrue(b.receive(buffer, info), "datagram " + i);
                assertEquals(i, psn(buffer));
                if (i == 0)
                {
                    // a busy poller's case: one datagram, and no second receive in the kernel to find none
                    assertEquals(1, b.receiveSyscalls(), "the first recvmmsg took one datagram");
                }
            }
            assertEquals(2, b.receiveSyscalls(), "the other nine came in one more recvmmsg");
            assertEquals(10, b.receivedDatagrams());
        }
    }

    @Test
    void shouldFlushWhatIsQueuedBeforeWaiting()
    {
        try (LinuxUdpLink a = new LinuxUdpLink(addressA, port); LinuxUdpLink b = new LinuxUdpLink(addressB, port))
        {
            assertTrue(a.queue(packet(7, 64, a), addressB, 64));
            a.awaitReadable(0);
            assertEquals(1, a.sentDatagrams(), "a wait owes a flush");
            assertTrue(receiveWithin(b, WAIT_MILLIS));
            assertEquals(7, psn(buffer));
        }
    }

    @Test
    void shouldSendARunToOneDestinationAsOneSegmentedMessageAndSplitItOnReceive()
    {
        try (LinuxUdpLink a = new LinuxUdpLink(addressA, port); LinuxUdpLink b = new LinuxUdpLink(addressB, port))
        {
            assumeTrue(a.segmentsSends() && b.coalescesReceives(), "the kernel has UDP GSO and GRO");
            final List<byte[]> sent = sendRunOfTwenty(a, addressB, 64);

            for (int i = 0; i < 20; i++)
            {
                assertTrue(receiveWithin(b, WAIT_MILLIS), "segment " + i);
                checkSegment(sent.get(i), bytes(buffer), i, addressB);
                assertEquals(i, info.ipIdentificationGuess, "the segment's place in the run, its identification");
            }
            assertEquals(1, b.receiveSyscalls(), "GRO kept the run together: one recvmmsg");
            assertEquals(1, b.receivedRuns());
        }
    }

    /** An empty datagram, a same-host wake-up, is a GRO slot of no segments: it comes alone, guessed 0. */
    @Test
    void shouldHandOutAnEmptyDatagramAsItself() throws IOException
    {
        try (LinuxUdpLink b = new LinuxUdpLink(addressB, port);
            DatagramChannel waker = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            waker.bind(new InetSocketAddress(addressA, 0));
            waker.send(ByteBuffer.allocate(0), new InetSocketAddress(addressB, port));
            info.ipIdentificationGuess = 9;
            assertTrue(receiveWithin(b, WAIT_MILLIS));
            assertEquals(0, buffer.limit());
            assertEquals(0, info.ipIdentificationGuess);
        }
    }

    /**
     * In place, each datagram of a run is read where the link received it, its slot, and nothing is copied into
     * the caller's buffer: the bytes are the sender's, and the buffer keeps what it had.
     */
    @Test
    void shouldHandOutEachDatagramOfARunWhereItWasReceived()
    {
        try (LinuxUdpLink a = new LinuxUdpLink(addressA, port); LinuxUdpLink b = new LinuxUdpLink(addressB, port))
        {
            assumeTrue(a.segmentsSends() && b.coalescesReceives(), "the kernel has UDP GSO and GRO");
            final List<byte[]> sent = sendRunOfTwenty(a, addressB, 64);
            final MemorySegment bufferSegment = MemorySegment.ofBuffer(buffer);
            bufferSegment.fill((byte)0x5A);
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
            MemorySegment slots = null;
            for (int i = 0; i < 20; i++)
            {
                while (!b.receiveInPlace(buffer, bufferSegment, info))
                {
                    assertTrue(System.nanoTime() < deadline, "segment " + i + " in time");
                    b.awaitReadable(TimeUnit.MILLISECONDS.toNanos(10));
                }
                assertNotSame(bufferSegment, info.data, "segment " + i + " is read in the link's memory");
                if (null == slots)
                {
                    slots = info.data;
                }
                assertSame(slots, info.data, "every segment in the same receive memory");
                checkSegment(sent.get(i), info.data.asSlice(info.dataOffset, info.dataLength)
                    .toArray(ValueLayout.JAVA_BYTE), i, addressB);
                assertEquals(i, info.ipIdentificationGuess);
            }
            assertEquals(1, b.receiveSyscalls(), "GRO kept the run together: one recvmmsg");
            final MemorySegment untouched = MemorySegment.ofArray(new byte[buffer.capacity()]).fill((byte)0x5A);
            assertEquals(-1, bufferSegment.mismatch(untouched), "nothing was copied into the buffer");
        }
    }

    @Test
    void shouldSegmentForAReceiverWithoutGro()
    {
        try (LinuxUdpLink a = new LinuxUdpLink(addressA, port); UdpLink b = new UdpLink(addressB, port))
        {
            assumeTrue(a.segmentsSends(), "the kernel has UDP GSO");
            final List<byte[]> sent = new ArrayList<>();
            for (int i = 0; i < 8; i++)
            {
                final ByteBuffer packet = packet(i, PAYLOAD, a);
                sent.add(bytes(packet));
                a.queue(packet, addressB, 64);
            }
            a.flush();
            assertEquals(1, a.gsoMessages());
            for (int i = 0; i < 8; i++)
            {
                assertTrue(io.rdma4j.soft.link.LinkTestingAccess.receiveWithin(b, buffer, info, WAIT_MILLIS));
                final byte[] received = bytes(buffer);
                assertEquals(sent.get(i).length, received.length, "the kernel cut the message at the segment size");
                assertEquals(i, psn(buffer));
            }
        }
    }

    /**
     * A run to a group leaves as one message; the kernel loops a copy back to each member on this host, which a
     * GRO member takes as one run and a member without GRO (NIO) gets cut into datagrams.
     */
    @Test
    void shouldSendARunToAGroupAsOneSegmentedMessageToGroAndPlainMembers()
    {
        final InetAddress group = TestNet.groupAddress(SUBNET, 200);
        try (LinuxUdpLink a = new LinuxUdpLink(addressA, port); LinuxUdpLink b = new LinuxUdpLink(addressB, port);
            UdpLink c = new UdpLink(addressC, port))
        {
            assumeTrue(a.segmentsSends() && b.coalescesReceives(), "the kernel has UDP GSO and GRO");
            b.joinGroup(group);
            c.joinGroup(group);
            final List<byte[]> sent = sendRunOfTwenty(a, group, 1);

            for (int i = 0; i < 20; i++)
            {
                assertTrue(receiveWithin(b, WAIT_MILLIS), "segment " + i + " at the GRO member");
                assertEquals(group, info.destination);
                checkSegment(sent.get(i), bytes(buffer), i, group);
            }
            assertEquals(1, b.receivedRuns(), "GRO kept the run together");
            for (int i = 0; i < 20; i++)
            {
                assertTrue(io.rdma4j.soft.link.LinkTestingAccess.receiveWithin(c, buffer, info, WAIT_MILLIS),
                    "segment " + i + " at the member without GRO");
                checkSegment(sent.get(i), bytes(buffer), i, group);
            }
        }
    }

    /**
     * Queue 19 datagrams of {@code PAYLOAD} bytes and a shorter last one to {@code to} and flush them: one
     * {@code sendmmsg}, one {@code UDP_SEGMENT} message.
     *
     * @return the datagrams as queued.
     */
    private List<byte[]> sendRunOfTwenty(final LinuxUdpLink a, final InetAddress to, final int hopLimit)
    {
        final List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < 20; i++)
        {
            final ByteBuffer packet = packet(i, i < 19 ? PAYLOAD : 100, a, to);
            sent.add(bytes(packet));
            assertTrue(a.queue(packet, to, hopLimit));
        }
        a.flush();
        assertEquals(1, a.sendSyscalls());
        assertEquals(1, a.gsoMessages(), "one UDP_SEGMENT message to " + to.getHostAddress());
        assertEquals(20, a.sentDatagrams());
        return sent;
    }

    /** Everything but the ICRC as queued; the ICRC moved to the identification the segment carries. */
    private void checkSegment(final byte[] sent, final byte[] received, final int segment, final InetAddress to)
    {
        assertEquals(sent.length, received.length, "segment " + segment);
        final int length = received.length;
        assertArrayEquals(java.util.Arrays.copyOf(sent, length - 4), java.util.Arrays.copyOf(received, length - 4),
            "segment " + segment);
        assertEquals(segment, icrc.check(MemorySegment.ofArray(received), 0, length, Ipv4.toInt(addressA),
            Ipv4.toInt(to), port, port, segment, true), "segment " + segment + "'s ICRC is for identification " +
            segment);
    }

    @Test
    void shouldNotSegmentRunsOfDifferentDestinationsOrSizes()
    {
        try (LinuxUdpLink a = new LinuxUdpLink(addressA, port);
            LinuxUdpLink b = new LinuxUdpLink(addressB, port);
            LinuxUdpLink c = new LinuxUdpLink(addressC, port))
        {
            assumeTrue(a.segmentsSends(), "the kernel has UDP GSO");
            // b, c, b, c: no two neighbours share a destination
            for (int i = 0; i < 4; i++)
            {
                a.queue(packet(i, PAYLOAD, a), i % 2 == 0 ? addressB : addressC, 64);
            }
            // a short datagram, then a longer one: a segment may not be longer than the first
            a.queue(packet(4, 100, a), addressB, 64);
            a.queue(packet(5, PAYLOAD, a), addressB, 64);
            a.flush();
            assertEquals(0, a.gsoMessages());
            assertEquals(6, a.sentDatagrams());
            assertEquals(1, a.sendSyscalls(), "still one sendmmsg");
            final List<Integer> atB = new ArrayList<>();
            while (atB.size() < 4 && receiveWithin(b, WAIT_MILLIS))
            {
                atB.add(psn(buffer));
            }
            assertEquals(List.of(0, 2, 4, 5), atB);
        }
    }

    @Test
    void shouldSendEveryDatagramWithDontFragmentAndIdentificationZeroAsTheIcrcAssumes()
    {
        try (RawUdpCapture capture = RawUdpCapture.open(port))
        {
            assumeTrue(null != capture, "a raw socket needs CAP_NET_RAW");
            try (LinuxUdpLink a = new LinuxUdpLink(addressA, port); LinuxUdpLink b = new LinuxUdpLink(addressB, port);
                LinuxUdpLink c = new LinuxUdpLink(addressC, port))
            {
                assertEquals(0, a.ipIdentification());
                // one sent alone, two queued and flushed together to different destinations
                assertTrue(a.send(packet(1, 200, a, addressB), addressB, 64));
                a.queue(packet(2, 300, a, addressC), addressC, 64);
                a.queue(packet(3, 400, a, addressB), addressB, 64);
                a.flush();
                for (int i = 0; i < 3; i++)
                {
                    final InetAddress destination = i == 1 ? addressC : addressB;
                    assertTrue(capture.next(Ipv4.toInt(destination), port, WAIT_MILLIS), "packet " + (i + 1));
                    assertEquals(0, capture.identification(), "packet " + (i + 1));
                    assertTrue(capture.dontFragment(), "packet " + (i + 1));
                    final int checked = icrc.check(capture.packet, capture.payloadOffset(), capture.payloadLength(),
                        capture.sourceIp(), capture.destinationIp(), capture.sourcePort(), capture.destinationPort(),
                        capture.identification(), capture.dontFragment());
                    assertEquals(0, checked, "the ICRC built for identification 0 matches the wire's header");
                    assertEquals(-1, icrc.check(capture.packet, capture.payloadOffset(), capture.payloadLength(),
                        capture.sourceIp(), capture.destinationIp(), capture.sourcePort(), capture.destinationPort(),
                        1, true), "and would not match another identification");
                }
            }
        }
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldLeaveGroupsWhileTheReceivingThreadWaitsInALoop() throws InterruptedException
    {
        try (LinuxUdpLink a = new LinuxUdpLink(addressA, port))
        {
            final AtomicBoolean running = new AtomicBoolean(true);
            final ByteBuffer scratch = ByteBuffer.allocateDirect(65536);
            final DatagramInfo scratchInfo = new DatagramInfo();
            // a progress loop's shape: receive, then wait for more, here for minutes: a leave that had to wait
            // for the waiting thread to let go of the receive lock would hang past the class's timeout
            final Thread loop = Thread.ofPlatform().start(() ->
            {
                while (running.get())
                {
                    while (a.receive(scratch, scratchInfo))
                    {
                        // drain
                    }
                    a.awaitReadable(TimeUnit.MINUTES.toNanos(10));
                }
            });
            try
            {
                for (int i = 0; i < 20; i++)
                {
                    final InetAddress group = TestNet.groupAddress(SUBNET, i + 1);
                    a.joinGroup(group);
                    a.leaveGroup(group);
                    assertEquals(0, a.joinCount(group));
                }
            }
            finally
            {
                running.set(false);
                a.wakeup();
                loop.join();
            }
        }
    }

    @Test
    void shouldReceiveNothingAfterCloseEvenWithDatagramsLeftInTheSlots()
    {
        try (LinuxUdpLink a = new LinuxUdpLink(addressA, port, false))
        {
            final LinuxUdpLink b = new LinuxUdpLink(addressB, port, false);
            for (int i = 0; i < 3; i++)
            {
                a.queue(packet(i, 64, a), addressB, 64);
            }
            a.flush();
            assertTrue(receiveWithin(b, WAIT_MILLIS));
            assertEquals(1, b.receivedDatagrams(), "two more wait in b's slots");
            b.close();
            assertFalse(b.receive(buffer, info), "the slots' memory is gone with the link");
            assertEquals(0, buffer.limit());
        }
    }

    @Test
    void shouldCountADatagramToAForeignFamilyAsASendFailure()
    {
        try (LinuxUdpLink a = new LinuxUdpLink(addressA, port))
        {
            assertTrue(a.queue(packet(1, 64, a), addressB, 64));
            assertNotEquals(true, a.queue(packet(2, 64, a), address("::1"), 64));
            a.flush();
            assertEquals(1, a.sendFailures());
            assertEquals(1, a.sentDatagrams());
        }
    }

    private ByteBuffer packet(final int psn, final int payload, final LinuxUdpLink from)
    {
        return packet(psn, payload, from, addressB);
    }

    /** A UD SEND_ONLY with its ICRC built for the link's identification, as the engine builds them. */
    private ByteBuffer packet(final int psn, final int payload, final LinuxUdpLink from, final InetAddress to)
    {
        final PacketInfo spec = new PacketInfo().clear()
            .opcode(Opcode.UD_SEND_ONLY)
            .destQp(0x12)
            .psn(psn)
            .qkey(0x11111111)
            .srcQp(0x34)
            .network(Ipv4.toInt(from.localAddress()), port, Ipv4.toInt(to), port, from.ipIdentification());
        final ByteBuffer packet = ByteBuffer.allocateDirect(payload + 64);
        final MemorySegment segment = MemorySegment.ofBuffer(packet);
        for (int i = 0; i < payload; i++)
        {
            segment.set(ValueLayout.JAVA_BYTE, Opcode.UD_SEND_ONLY.headerLength() + i, (byte)(psn + i));
        }
        final int length = builder.build(spec, payload, segment, 0);
        return packet.limit(length);
    }

    private static int psn(final ByteBuffer packet)
    {
        return packet.getInt(packet.position() + 8) & 0xFFFFFF;
    }

    private static byte[] bytes(final ByteBuffer packet)
    {
        final byte[] bytes = new byte[packet.remaining()];
        packet.get(packet.position(), bytes);
        return bytes;
    }

    private boolean receiveWithin(final LinuxUdpLink link, final long timeoutMillis)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!link.receive(buffer, info))
        {
            final long left = deadline - System.nanoTime();
            if (left <= 0)
            {
                return false;
            }
            link.awaitReadable(left);
        }
        return true;
    }

    private static InetAddress address(final String literal)
    {
        try
        {
            return InetAddress.getByName(literal);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException(literal, ex);
        }
    }
}
