package io.rdma4j.tools.perf;

import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.WrOpcode;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The tests of perftest that {@code rdma4j perf} runs: which operation, whether it measures latency
 * or bandwidth, and the transports it is defined on (READ and atomics need RC; RDMA WRITE needs RC or
 * UC; SEND runs on all three).
 */
public enum PerfTest
{
    /** SEND ping-pong; half the round trip, as perftest reports it. */
    SEND_LAT(WrOpcode.SEND, true, EnumSet.of(QpType.RC, QpType.UC, QpType.UD)),
    /** A stream of SENDs from client to server. */
    SEND_BW(WrOpcode.SEND, false, EnumSet.of(QpType.RC, QpType.UC, QpType.UD)),
    /** RDMA WRITE ping-pong, each side polling the last byte of its buffer; half the round trip. */
    WRITE_LAT(WrOpcode.RDMA_WRITE, true, EnumSet.of(QpType.RC, QpType.UC)),
    /** A stream of RDMA WRITEs from client to server. */
    WRITE_BW(WrOpcode.RDMA_WRITE, false, EnumSet.of(QpType.RC, QpType.UC)),
    /** One RDMA READ at a time; the whole round trip. */
    READ_LAT(WrOpcode.RDMA_READ, true, EnumSet.of(QpType.RC)),
    /** RDMA READs kept in flight up to the QP's read limit. */
    READ_BW(WrOpcode.RDMA_READ, false, EnumSet.of(QpType.RC)),
    /** One 8-byte FETCH_AND_ADD at a time; the whole round trip. */
    ATOMIC_LAT(WrOpcode.ATOMIC_FETCH_AND_ADD, true, EnumSet.of(QpType.RC));

    private final WrOpcode opcode;
    private final boolean latency;
    private final Set<QpType> transports;

    PerfTest(final WrOpcode opcode, final boolean latency, final Set<QpType> transports)
    {
        this.opcode = opcode;
        this.latency = latency;
        this.transports = transports;
    }

    /**
     * @return the work request opcode the test posts.
     */
    public WrOpcode opcode()
    {
        return opcode;
    }

    /**
     * @return true for a latency test, false for a bandwidth test.
     */
    public boolean isLatency()
    {
        return latency;
    }

    /**
     * @param type a transport.
     * @return true if the test is defined on it.
     */
    public boolean runsOn(final QpType type)
    {
        return transports.contains(type);
    }

    /**
     * @return true when the figure is half a round trip (the ping-pong tests), false when it is a whole
     * one (READ and atomics wait for their own response).
     */
    public boolean halvesRoundTrip()
    {
        return this == SEND_LAT || this == WRITE_LAT;
    }

    /**
     * @return true for the tests where the server posts receives and the client's messages consume them.
     */
    public boolean usesReceives()
    {
        return opcode == WrOpcode.SEND;
    }

    /**
     * @return the name on the command line and in the result line, e.g. {@code send_lat}.
     */
    public String label()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param text a test name as perftest spells it ({@code send_lat}, or {@code ib_send_lat}).
     * @return the test.
     * @throws IllegalArgumentException naming the tests there are, for any other text.
     */
    public static PerfTest parse(final String text)
    {
        final String name = text.startsWith("ib_") ? text.substring(3) : text;
        for (final PerfTest test : values())
        {
            if (test.label().equals(name))
            {
                return test;
            }
        }
        throw new IllegalArgumentException("unknown test '" + text + "': expected one of send_lat, send_bw, " +
            "write_lat, write_bw, read_lat, read_bw, atomic_lat");
    }
}
