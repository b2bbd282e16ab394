package io.rdma4j.soft;

import io.rdma4j.soft.verbs.DeviceLimits;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.WorkCompletion;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;

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

    static WorkCompletion one(final List<WorkCompletion> wcs, final String what)
    {
        assertEquals(1, wcs.size(), what + ": no completion");
        return wcs.getFirst();
    }
}
