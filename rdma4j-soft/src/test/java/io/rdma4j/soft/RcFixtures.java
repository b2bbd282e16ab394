package io.rdma4j.soft;

import io.rdma4j.soft.verbs.DeviceLimits;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Fixtures of the connected-transport tests: a connected pair of endpoints with PSNs near the
 * 24-bit wrap, buffer contents filled and read back, and the single completion of a poll.
 */
final class RcFixtures
{
    private RcFixtures()
    {
    }

    /** Half of an endpoint's buffer: the offset where the peer's half begins. */
    static final long HALF = 2L << 20;
    static final int MIB = 1 << 20;

    static RcEndpoint[] pair(final Fabric fabric, final QpType type, final Mtu mtu)
    {
        return pair(fabric, type, mtu, 12);
    }

    /**
     * Two endpoints on jumbo-frame devices (so every path MTU is allowed), connected with PSNs just
     * below the 24-bit wrap.
     */
    static RcEndpoint[] pair(final Fabric fabric, final QpType type, final Mtu mtu, final int timeout)
    {
        final DeviceLimits limits = DeviceLimits.RXE.withEthernetMtu(9000);
        final RcEndpoint a = new RcEndpoint(fabric.open(limits), type, 2 * HALF, 256);
        final RcEndpoint b = new RcEndpoint(fabric.open(limits), type, 2 * HALF, 256);
        RcConnectSettings.defaults().mtu(mtu).timeout(timeout).psns(0xFFFFF0, 0xFFFFE0).connect(a, b);
        return new RcEndpoint[] {a, b};
    }

    static void fill(final MemorySegment segment, final long offset, final int length, final long seed)
    {
        final Random random = new Random(seed);
        final byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, offset, length);
    }

    static byte[] bytes(final MemorySegment segment, final long offset, final int length)
    {
        final byte[] out = new byte[length];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, out, 0, length);
        return out;
    }

    /**
     * A SEND of 100 bytes at {@code offset} from one endpoint to the other's receive there: received whole and
     * intact. After an attack, it shows the connection still works at the PSNs it had.
     */
    static void sendAndReceive(final RcEndpoint from, final RcEndpoint to, final long offset)
    {
        to.qp.postRecv(new RecvWr().wrId(50).sge(to.mr, offset, 256));
        fill(from.buffer, offset, 100, 5);
        from.qp.postSend(new SendWr().wrId(51).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .sge(from.mr, offset, 100));
        final WorkCompletion wc = one(to.pollRecv(1, 10_000), "receive after the attack");
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertArrayEquals(bytes(from.buffer, offset, 100), bytes(to.buffer, offset, 100));
    }

    /**
     * After an attack on {@code to}'s posted receive: a SEND of 200 bytes from the real peer still finds that
     * receive, which only it completes.
     *
     * @param wrId   the receive's work request id.
     * @param offset where the receive's buffer begins in {@code to}'s memory region.
     */
    static void sendTakesTheWaitingReceive(final RcEndpoint from, final RcEndpoint to, final long wrId,
        final long offset)
    {
        fill(from.buffer, 0, 200, 11);
        from.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .sge(from.mr, 0, 200));
        final WorkCompletion wc = one(to.pollRecv(1, 10_000), "the receive the attack aimed at");
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(wrId, wc.wrId());
        assertEquals(200, wc.byteLen());
        assertArrayEquals(bytes(from.buffer, 0, 200), bytes(to.buffer, offset, 200));
    }

    static WorkCompletion one(final List<WorkCompletion> wcs, final String what)
    {
        assertEquals(1, wcs.size(), what + ": no completion");
        return wcs.getFirst();
    }
}
