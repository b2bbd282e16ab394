package io.rdma4j.soft.transport;

import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.verbs.WrOpcode;

/**
 * Which wire opcode carries each packet of a work request, as data: per work-request opcode, the
 * RC opcode of its FIRST, MIDDLE, LAST and ONLY packet; UC uses the same operation with the UC
 * transport prefix (0x20). READ and atomics are single request packets.
 */
final class RequestOpcodes
{
    /** First packet of a multi-packet message. */
    static final int FIRST = 0;
    /** Neither first nor last. */
    static final int MIDDLE = 1;
    /** Last packet of a multi-packet message. */
    static final int LAST = 2;
    /** The message fits one packet. */
    static final int ONLY = 3;

    private static final int UC_PREFIX = 0x20;
    private static final Opcode[][] RC = new Opcode[WrOpcode.values().length][];
    private static final Opcode[][] UC = new Opcode[WrOpcode.values().length][];

    static
    {
        put(WrOpcode.SEND, 0x00, 0x01, 0x02, 0x04);
        put(WrOpcode.SEND_WITH_IMM, 0x00, 0x01, 0x03, 0x05);
        put(WrOpcode.SEND_WITH_INV, 0x00, 0x01, 0x16, 0x17);
        put(WrOpcode.RDMA_WRITE, 0x06, 0x07, 0x08, 0x0A);
        put(WrOpcode.RDMA_WRITE_WITH_IMM, 0x06, 0x07, 0x09, 0x0B);
        put(WrOpcode.RDMA_READ, 0x0C, 0x0C, 0x0C, 0x0C);
        put(WrOpcode.ATOMIC_CMP_AND_SWP, 0x13, 0x13, 0x13, 0x13);
        put(WrOpcode.ATOMIC_FETCH_AND_ADD, 0x14, 0x14, 0x14, 0x14);
    }

    private RequestOpcodes()
    {
    }

    private static void put(final WrOpcode op, final int first, final int middle, final int last, final int only)
    {
        final int[] wires = {first, middle, last, only};
        final Opcode[] rc = new Opcode[wires.length];
        final Opcode[] uc = new Opcode[wires.length];
        for (int i = 0; i < wires.length; i++)
        {
            rc[i] = Opcode.fromWire(wires[i]);
            // null where UC has no such opcode (invalidate, read, atomics): posting refuses those on UC
            uc[i] = Opcode.fromWire(wires[i] | UC_PREFIX);
        }
        RC[op.ordinal()] = rc;
        UC[op.ordinal()] = uc;
    }

    /**
     * @param uc       true for a UC QP.
     * @param op       the work request's opcode.
     * @param position {@link #FIRST}, {@link #MIDDLE}, {@link #LAST} or {@link #ONLY}.
     * @return the wire opcode, or null if the transport has none for it (LOCAL_INV, BIND_MW).
     */
    static Opcode of(final boolean uc, final WrOpcode op, final int position)
    {
        final Opcode[] row = (uc ? UC : RC)[op.ordinal()];
        return row == null ? null : row[position];
    }

    /**
     * @param op a work request's opcode.
     * @return true for RDMA READ and the atomics: they use read/atomic credits and need a response.
     */
    static boolean isReadOrAtomic(final WrOpcode op)
    {
        return op == WrOpcode.RDMA_READ || op == WrOpcode.ATOMIC_CMP_AND_SWP || op == WrOpcode.ATOMIC_FETCH_AND_ADD;
    }

    /**
     * @param op a work request's opcode.
     * @return true for the atomics.
     */
    static boolean isAtomic(final WrOpcode op)
    {
        return op == WrOpcode.ATOMIC_CMP_AND_SWP || op == WrOpcode.ATOMIC_FETCH_AND_ADD;
    }
}
