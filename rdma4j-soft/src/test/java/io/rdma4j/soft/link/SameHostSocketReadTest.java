package io.rdma4j.soft.link;

import static io.rdma4j.soft.link.LinkTesting.datagram;
import static io.rdma4j.soft.link.LinkTesting.freePort;
import static io.rdma4j.soft.link.LinkTesting.receiveWithin;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdma4j.soft.link.socket.UdpLinks;
import io.rdma4j.testing.TestNet;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How often a same-host link's receiver reads its UDP socket while its inbox is empty: on one read in 64 while
 * the inbox is the path that delivered last (a spinning poller's empty {@code recvmmsg} costs more than a dozen
 * looks at the inbox), on one in 16 otherwise. Counted by a link between the same-host link and its socket.
 */
final class SameHostSocketReadTest
{
    private static final int HOP_LIMIT = 64;
    private final InetAddress addressA = TestNet.hostAddress(10);
    private final InetAddress addressB = TestNet.hostAddress(11);
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(2048);
    private final DatagramInfo info = new DatagramInfo();

    @Test
    void readsTheSocketLessOftenWhileTheInboxDelivers()
    {
        final int port = freePort();
        final CountedReads socket = new CountedReads(TestLinks.open(addressB, port));
        try (Link b = SameHostLink.over(socket, TestLinks.shmDirectory(), System.getLogger("b"));
            IpLink remote = TestLinks.open(addressA, port))
        {
            // neither path has delivered: one socket read in 16 empty looks (the first look, after none, reads it)
            assertEquals(2, socketReadsOver(b, socket, 32));

            // a same-host peer's datagram, through b's inbox: from then on one socket read in 64
            final Link sameHost = SameHostLink.over(TestLinks.open(TestNet.hostAddress(12), port),
                TestLinks.shmDirectory(), System.getLogger("c"));
            try (sameHost)
            {
                assertTrue(((SameHostLink)sameHost).sameHostPathTo(addressB), "c finds b's inbox");
                assertTrue(sameHost.send(datagram("by the inbox"), addressB, HOP_LIMIT));
                assertTrue(receiveWithin(b, buffer, info, 5_000));
                assertTrue(info.viaSameHostPath);
                assertEquals(2, socketReadsOver(b, socket, 128));
            }

            // a peer without an inbox (another host, as far as b can tell) speaks last: one in 16 again
            assertTrue(remote.send(datagram("by udp"), addressB, HOP_LIMIT));
            assertTrue(receiveWithin(b, buffer, info, 5_000));
            assertFalse(info.viaSameHostPath);
            assertEquals(8, socketReadsOver(b, socket, 128));
        }
    }

    /**
     * A receiver that slept with its parked flag set is woken by an empty datagram on its socket. Once it has the
     * record and the wake-up, it stops: a further look would be a system call that finds the socket empty, where a
     * blocking socket's receiver makes none (issue 40: it was one of four calls per message, with poll, the
     * wake-up's read and the reply's send). Over the Linux socket, whose batches tell when they drained it.
     */
    @Test
    void readsTheSocketOnceForTheWakeUpThatEndedAWait() throws InterruptedException
    {
        final int port = freePort();
        final CountedReads socket = new CountedReads(UdpLinks.open(UdpLinks.Socket.LINUX, addressB, port));
        try (SameHostLink b = (SameHostLink)SameHostLink.over(socket, TestLinks.shmDirectory(), System.getLogger("b"));
            SameHostLink c = (SameHostLink)SameHostLink.over(TestLinks.open(TestNet.hostAddress(14), port),
                TestLinks.shmDirectory(), System.getLogger("c")))
        {
            assertTrue(c.sameHostPathTo(addressB), "c finds b's inbox");
            for (int round = 0; round < 3; round++)
            {
                final Thread sleeper = Thread.ofPlatform().start(() -> b.awaitReadable(TimeUnit.MINUTES.toNanos(1)));
                while (!b.waiting() && sleeper.isAlive())
                {
                    Thread.onSpinWait();
                }
                assertTrue(c.send(datagram("round " + round), addressB, HOP_LIMIT));
                sleeper.join(TimeUnit.SECONDS.toMillis(30));
                assertFalse(sleeper.isAlive(), "the wake-up ended the wait");
                final long before = socket.reads;
                assertTrue(b.receive(buffer, info), "the record");
                assertTrue(info.viaSameHostPath);
                assertFalse(b.receive(buffer, info), "a wake-up is no datagram");
                assertEquals(1, socket.reads - before, "socket reads after the wait, round " + round);
            }
        }
    }

    /** @return the socket reads that {@code looks} receives from an empty link make. */
    private long socketReadsOver(final Link link, final CountedReads socket, final int looks)
    {
        final long before = socket.reads;
        for (int i = 0; i < looks; i++)
        {
            assertFalse(link.receive(buffer, info), "nothing to receive");
        }
        return socket.reads - before;
    }

    /** A socket's link that counts the reads made of it. */
    private static final class CountedReads extends ForwardingLink implements IpLink
    {
        private long reads;

        CountedReads(final IpLink inner)
        {
            super(inner);
        }

        @Override
        public boolean receive(final ByteBuffer buffer, final DatagramInfo info)
        {
            reads++;
            return inner.receive(buffer, info);
        }

        @Override
        public NetworkInterface networkInterface()
        {
            return ((IpLink)inner).networkInterface();
        }

        @Override
        public long sendFailures()
        {
            return ((IpLink)inner).sendFailures();
        }

        @Override
        public long receiveFailures()
        {
            return ((IpLink)inner).receiveFailures();
        }

        @Override
        public int joinCount(final InetAddress group)
        {
            return ((IpLink)inner).joinCount(group);
        }

        @Override
        public boolean sendWakeup(final InetAddress destination)
        {
            return ((IpLink)inner).sendWakeup(destination);
        }
    }
}
