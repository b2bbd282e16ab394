package io.rdma4j.soft.link;

import static io.rdma4j.soft.link.LinkTesting.datagram;
import static io.rdma4j.soft.link.LinkTesting.freePort;
import static io.rdma4j.soft.link.LinkTesting.receiveWithin;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdma4j.soft.wire.DeferredIcrc;
import io.rdma4j.testing.TestNet;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * A datagram built without its ICRC ({@link DeferredIcrc}) has it computed only where its path needs one: into a
 * same-host peer's owner-only inbox it goes without, and its record says so; by UDP (a peer without an inbox,
 * or a link's default) it is computed first. The ICRC stand-in here writes a marker into the datagram's last
 * bytes, so the receiver sees which happened.
 */
final class SameHostIcrcTest
{
    private static final int HOP_LIMIT = 64;
    private static final int MARK = 0x1C2C3C4C;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(2048);
    private final DatagramInfo info = new DatagramInfo();

    @Test
    void anInboxRecordGoesWithoutTheIcrcAndAUdpDatagramWithIt()
    {
        final int port = freePort();
        final InetAddress addressA = TestNet.hostAddress(30);
        final InetAddress addressB = TestNet.hostAddress(31);
        final InetAddress addressC = TestNet.hostAddress(32);
        try (Link a = SameHostLink.over(TestLinks.open(addressA, port), TestLinks.shmDirectory(),
                System.getLogger("a"));
            Link b = SameHostLink.over(TestLinks.open(addressB, port), TestLinks.shmDirectory(),
                System.getLogger("b"));
            IpLink c = TestLinks.open(addressC, port))
        {
            assertTrue(((SameHostLink)a).sameHostPathTo(addressB), "a finds b's inbox");
            assertEquals(0, sendAndReceive(a, addressB, b), "no ICRC into an inbox");
            assertTrue(info.viaSameHostPath);
            assertTrue(info.icrcOmitted, "the record says its ICRC was left out");
            assertFalse(buffer.getInt(buffer.limit() - 4) == MARK);

            // c has no inbox: by UDP, with the ICRC
            assertEquals(1, sendAndReceive(a, addressC, c), "the ICRC of a datagram for the socket");
            assertFalse(info.icrcOmitted);
            assertEquals(MARK, buffer.getInt(buffer.limit() - 4));

            // and an ICRC that cannot be computed (the payload's memory closed) sends nothing
            assertFalse(a.queue(datagram("not sent....."), addressC, HOP_LIMIT, () -> false));

            // b's inbox after a socket's datagram: the flag is the record's, not left over
            assertTrue(c.send(datagram("by udp to b.."), addressB, HOP_LIMIT));
            assertTrue(receiveWithin(b, buffer, info, 5_000));
            assertFalse(info.viaSameHostPath);
            assertFalse(info.icrcOmitted, "a socket's datagram is checked");
        }
    }

    /** @return how often queueing a datagram from {@code from} to {@code to} computed its ICRC; received whole. */
    private int sendAndReceive(final Link from, final InetAddress to, final Link receiver)
    {
        final ByteBuffer datagram = datagram("thirteen char");
        final Marker icrc = new Marker(datagram);
        assertTrue(from.queue(datagram, to, HOP_LIMIT, icrc));
        from.flush();
        assertTrue(receiveWithin(receiver, buffer, info, 5_000));
        assertEquals(datagram.remaining(), buffer.limit());
        return icrc.calls;
    }

    /** Stands in for the ICRC: counts its calls and writes a marker into the datagram's last four bytes. */
    private static final class Marker implements DeferredIcrc
    {
        private final ByteBuffer datagram;
        private int calls;

        Marker(final ByteBuffer datagram)
        {
            this.datagram = datagram;
        }

        @Override
        public boolean generate()
        {
            calls++;
            datagram.putInt(datagram.limit() - 4, MARK);
            return true;
        }
    }
}
