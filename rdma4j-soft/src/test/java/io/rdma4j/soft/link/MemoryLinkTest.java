package io.rdma4j.soft.link;

import static io.rdma4j.soft.link.LinkTesting.address;
import static io.rdma4j.soft.link.LinkTesting.datagram;
import static io.rdma4j.soft.link.LinkTesting.receiveWithin;
import static io.rdma4j.soft.link.LinkTesting.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class MemoryLinkTest
{
    private static final long WAIT_MILLIS = 5_000;

    private final InetAddress addressA = address("10.0.0.1");
    private final InetAddress addressB = address("10.0.0.2");
    private final InetAddress addressC = address("10.0.0.3");
    private final InetAddress group = address("239.255.0.1");
    private final MemoryNetwork network = new MemoryNetwork();
    private final ByteBuffer buffer = ByteBuffer.allocate(2048);
    private final DatagramInfo info = new DatagramInfo();

    @Test
    void shouldDeliverUnicastWithItsHeaderFields()
    {
        final MemoryLink a = network.attach(addressA).ipIdentification(0x1234);
        final MemoryLink b = network.attach(addressB);
        final ByteBuffer hello = datagram("hello");

        assertTrue(a.send(hello, addressB, 17));
        assertEquals(0, hello.position());

        assertTrue(b.receive(buffer, info));
        assertEquals("hello", text(buffer));
        assertEquals(0, buffer.position());
        assertEquals(addressA, info.source);
        assertEquals(Link.ROCE_V2_PORT, info.sourcePort);
        assertEquals(addressB, info.destination);
        assertEquals(Link.ROCE_V2_PORT, info.destinationPort);
        assertEquals(17, info.ttl);
        assertEquals(0x1234, info.ipIdentification);
        assertEquals(0x1234, a.ipIdentification());
        assertFalse(b.receive(buffer, info));
        assertFalse(a.receive(buffer, info));
    }

    @Test
    void shouldHideTtlAndIpIdentificationLikeAUdpSocketWhenAsked()
    {
        final MemoryLink a = network.ipHeaderVisible(false).attach(addressA).ipIdentification(7);
        final MemoryLink b = network.attach(addressB);

        a.send(datagram("x"), addressB, 64);

        assertTrue(b.receive(buffer, info));
        assertEquals(-1, info.ttl);
        assertEquals(-1, info.ipIdentification);
    }

    @Test
    void shouldCountDatagramsToAnAddressNobodyHas()
    {
        final MemoryLink a = network.attach(addressA);

        assertTrue(a.send(datagram("lost"), addressC, 64));
        assertTrue(a.send(datagram("lost"), group, 1));

        assertEquals(2, network.undeliverable());
        assertEquals(2, network.sent());
    }

    @Test
    void shouldDeliverMulticastToEveryMemberIncludingTheSender()
    {
        final MemoryLink a = network.attach(addressA);
        final MemoryLink b = network.attach(addressB);
        final MemoryLink c = network.attach(addressC);
        a.joinGroup(group);
        b.joinGroup(group);

        c.send(datagram("from-c"), group, 3);
        a.send(datagram("from-a"), group, 3);

        for (final MemoryLink member : List.of(a, b))
        {
            assertTrue(member.receive(buffer, info));
            assertEquals("from-c", text(buffer));
            assertEquals(group, info.destination);
            assertEquals(addressC, info.source);
            assertTrue(member.receive(buffer, info));
            assertEquals("from-a", text(buffer));
            assertEquals(addressA, info.source);
        }
        assertFalse(c.receive(buffer, info), "a non-member receives nothing");
    }

    @Test
    void shouldCountJoinsAndStopDeliveringAfterTheLastLeave()
    {
        final MemoryLink a = network.attach(addressA);
        final MemoryLink b = network.attach(addressB);
        b.joinGroup(group);
        b.joinGroup(group);
        assertEquals(2, b.joinCount(group));

        b.leaveGroup(group);
        a.send(datagram("one"), group, 1);
        assertTrue(b.receive(buffer, info));

        b.leaveGroup(group);
        b.leaveGroup(group);
        a.send(datagram("two"), group, 1);
        assertFalse(b.receive(buffer, info));
        assertEquals(0, b.joinCount(group));
    }

    @Test
    void shouldDropAndCountWhenTheQueueIsFull()
    {
        final MemoryNetwork small = new MemoryNetwork(2);
        final MemoryLink a = small.attach(addressA);
        final MemoryLink b = small.attach(addressB);

        for (int i = 0; i < 5; i++)
        {
            a.send(datagram("d" + i), addressB, 64);
        }

        assertEquals(2, b.queued());
        assertEquals(3, b.queueDrops());
        assertTrue(b.receive(buffer, info));
        assertEquals("d0", text(buffer));
        assertTrue(b.receive(buffer, info));
        assertEquals("d1", text(buffer));
        assertFalse(b.receive(buffer, info));
        assertEquals(2, b.received());
    }

    @Test
    void shouldTruncateADatagramLongerThanTheBuffer()
    {
        final MemoryLink a = network.attach(addressA);
        final MemoryLink b = network.attach(addressB);

        a.send(datagram("0123456789"), addressB, 64);

        final ByteBuffer small = ByteBuffer.allocate(4);
        assertTrue(b.receive(small, info));
        assertEquals("0123", text(small));
    }

    @Test
    void shouldRefuseASecondLinkAtOneAddressUntilTheFirstCloses()
    {
        final MemoryLink a = network.attach(addressA);
        final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> network.attach(addressA));
        assertTrue(ex.getMessage().startsWith("10.0.0.1 is already attached"), ex.getMessage());

        a.close();
        a.close();
        assertFalse(a.send(datagram("late"), addressB, 64));
        final MemoryLink again = network.attach(addressA);
        assertEquals(addressA, again.localAddress());
    }

    @Test
    void shouldLeaveGroupsOnClose()
    {
        final MemoryLink a = network.attach(addressA);
        final MemoryLink b = network.attach(addressB);
        b.joinGroup(group);
        b.close();

        a.send(datagram("x"), group, 1);

        assertEquals(1, network.undeliverable());
    }

    @Test
    void shouldInjectAHandMadeDatagramAndTapEverySend()
    {
        final List<SentDatagram> tapped = new ArrayList<>();
        network.tap(tapped::add);
        final MemoryLink a = network.attach(addressA);
        final MemoryLink b = network.attach(addressB);

        network.inject(addressC, addressB, datagram("forged"));
        a.send(datagram("real"), addressB, 9);

        assertTrue(b.receive(buffer, info));
        assertEquals("forged", text(buffer));
        assertEquals(addressC, info.source);
        assertTrue(b.receive(buffer, info));
        assertEquals("real", text(buffer));

        assertEquals(1, tapped.size(), "injected datagrams bypass the tap");
        final SentDatagram sent = tapped.get(0);
        assertEquals(0, sent.sequence());
        assertEquals(addressA, sent.source());
        assertEquals(addressB, sent.destination());
        assertEquals(9, sent.ttl());
        assertEquals("real", text(sent.buffer()));
    }

    @Test
    void shouldBlockInAwaitReadableUntilADatagramArrives() throws InterruptedException
    {
        final MemoryLink a = network.attach(addressA);
        final MemoryLink b = network.attach(addressB);
        final CountDownLatch started = new CountDownLatch(1);
        final List<String> received = new ArrayList<>();
        final Thread receiver = Thread.ofPlatform().start(() ->
        {
            final ByteBuffer receiveBuffer = ByteBuffer.allocate(64);
            final DatagramInfo receiveInfo = new DatagramInfo();
            started.countDown();
            if (receiveWithin(b, receiveBuffer, receiveInfo, WAIT_MILLIS))
            {
                received.add(text(receiveBuffer));
            }
        });

        started.await();
        a.send(datagram("wake"), addressB, 64);
        receiver.join();

        assertEquals(List.of("wake"), received);
    }

    @Test
    void shouldUnblockAwaitReadableOnWakeup() throws InterruptedException
    {
        final MemoryLink a = network.attach(addressA);
        final CountDownLatch returned = new CountDownLatch(1);
        final Thread waiter = Thread.ofPlatform().start(() ->
        {
            a.awaitReadable(TimeUnit.MINUTES.toNanos(10));
            returned.countDown();
        });

        a.wakeup();

        assertTrue(returned.await(WAIT_MILLIS, TimeUnit.MILLISECONDS));
        waiter.join();
    }

    @Test
    void shouldReturnFromAwaitReadableAfterTheTimeoutAndAtOnceForZero()
    {
        final MemoryLink a = network.attach(addressA);

        final long start = System.nanoTime();
        a.awaitReadable(TimeUnit.MILLISECONDS.toNanos(20));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(20));
        a.awaitReadable(0);
    }

    @Test
    void shouldRejectAMulticastAddressForALinkAndAUnicastAddressForAGroup()
    {
        assertThrows(IllegalArgumentException.class, () -> network.attach(group));
        final MemoryLink a = network.attach(addressA);
        assertThrows(IllegalArgumentException.class, () -> a.joinGroup(addressB));
        assertThrows(IllegalArgumentException.class, () -> a.ipIdentification(0x10000));
    }
}
