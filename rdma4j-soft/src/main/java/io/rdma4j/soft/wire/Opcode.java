package io.rdma4j.soft.wire;

import java.util.Arrays;

import static io.rdma4j.soft.wire.OpcodeMask.ACK;
import static io.rdma4j.soft.wire.OpcodeMask.AETH;
import static io.rdma4j.soft.wire.OpcodeMask.ATOMIC;
import static io.rdma4j.soft.wire.OpcodeMask.ATOMIC_ACK_ETH;
import static io.rdma4j.soft.wire.OpcodeMask.ATOMIC_ETH;
import static io.rdma4j.soft.wire.OpcodeMask.ATOMIC_WRITE;
import static io.rdma4j.soft.wire.OpcodeMask.BTH;
import static io.rdma4j.soft.wire.OpcodeMask.CNP_RESERVED;
import static io.rdma4j.soft.wire.OpcodeMask.COMPLETES;
import static io.rdma4j.soft.wire.OpcodeMask.DETH;
import static io.rdma4j.soft.wire.OpcodeMask.END;
import static io.rdma4j.soft.wire.OpcodeMask.FETH;
import static io.rdma4j.soft.wire.OpcodeMask.FLUSH;
import static io.rdma4j.soft.wire.OpcodeMask.IETH;
import static io.rdma4j.soft.wire.OpcodeMask.IMMDT;
import static io.rdma4j.soft.wire.OpcodeMask.MIDDLE;
import static io.rdma4j.soft.wire.OpcodeMask.PAYLOAD;
import static io.rdma4j.soft.wire.OpcodeMask.READ;
import static io.rdma4j.soft.wire.OpcodeMask.REQUEST;
import static io.rdma4j.soft.wire.OpcodeMask.RETH;
import static io.rdma4j.soft.wire.OpcodeMask.SEND;
import static io.rdma4j.soft.wire.OpcodeMask.START;
import static io.rdma4j.soft.wire.OpcodeMask.TAKES_RECV_WQE;
import static io.rdma4j.soft.wire.OpcodeMask.WRITE;

/**
 * The wire opcodes of RoCEv2 as data: each knows its byte value, its {@link OpcodeMask} bits, its header length
 * (BTH plus extension headers) and where each extension header starts. The table follows the InfiniBand
 * specification and Linux rxe's opcode table; RD and XRC, which rxe lacks, are left out.
 */
public enum Opcode
{
    /** RC SEND, first packet. */
    RC_SEND_FIRST(0x00, PAYLOAD | REQUEST | TAKES_RECV_WQE | SEND | START),
    /** RC SEND, middle packet. */
    RC_SEND_MIDDLE(0x01, PAYLOAD | REQUEST | SEND | MIDDLE),
    /** RC SEND, last packet. */
    RC_SEND_LAST(0x02, PAYLOAD | REQUEST | COMPLETES | SEND | END),
    /** RC SEND with immediate, last packet. */
    RC_SEND_LAST_WITH_IMMEDIATE(0x03, IMMDT | PAYLOAD | REQUEST | COMPLETES | SEND | END),
    /** RC SEND in one packet. */
    RC_SEND_ONLY(0x04, PAYLOAD | REQUEST | COMPLETES | TAKES_RECV_WQE | SEND | START | END),
    /** RC SEND with immediate in one packet. */
    RC_SEND_ONLY_WITH_IMMEDIATE(0x05, IMMDT | PAYLOAD | REQUEST | COMPLETES | TAKES_RECV_WQE | SEND | START | END),
    /** RC RDMA WRITE, first packet. */
    RC_RDMA_WRITE_FIRST(0x06, RETH | PAYLOAD | REQUEST | WRITE | START),
    /** RC RDMA WRITE, middle packet. */
    RC_RDMA_WRITE_MIDDLE(0x07, PAYLOAD | REQUEST | WRITE | MIDDLE),
    /** RC RDMA WRITE, last packet. */
    RC_RDMA_WRITE_LAST(0x08, PAYLOAD | REQUEST | WRITE | END),
    /** RC RDMA WRITE with immediate, last packet. */
    RC_RDMA_WRITE_LAST_WITH_IMMEDIATE(0x09, IMMDT | PAYLOAD | REQUEST | WRITE | COMPLETES | TAKES_RECV_WQE | END),
    /** RC RDMA WRITE in one packet. */
    RC_RDMA_WRITE_ONLY(0x0A, RETH | PAYLOAD | REQUEST | WRITE | START | END),
    /** RC RDMA WRITE with immediate in one packet. */
    RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(
        0x0B, RETH | IMMDT | PAYLOAD | REQUEST | WRITE | COMPLETES | TAKES_RECV_WQE | START | END),
    /** RC RDMA READ request. */
    RC_RDMA_READ_REQUEST(0x0C, RETH | REQUEST | READ | START | END),
    /** RC RDMA READ response, first packet. */
    RC_RDMA_READ_RESPONSE_FIRST(0x0D, AETH | PAYLOAD | ACK | READ | START),
    /** RC RDMA READ response, middle packet; the only response without an AETH. */
    RC_RDMA_READ_RESPONSE_MIDDLE(0x0E, PAYLOAD | ACK | READ | MIDDLE),
    /** RC RDMA READ response, last packet. */
    RC_RDMA_READ_RESPONSE_LAST(0x0F, AETH | PAYLOAD | ACK | READ | END),
    /** RC RDMA READ response in one packet. */
    RC_RDMA_READ_RESPONSE_ONLY(0x10, AETH | PAYLOAD | ACK | READ | START | END),
    /** RC ACK or NAK. */
    RC_ACKNOWLEDGE(0x11, AETH | ACK | START | END),
    /** RC response to an atomic request. */
    RC_ATOMIC_ACKNOWLEDGE(0x12, AETH | ATOMIC_ACK_ETH | ACK | ATOMIC | START | END),
    /** RC atomic compare and swap. */
    RC_COMPARE_SWAP(0x13, ATOMIC_ETH | REQUEST | ATOMIC | START | END),
    /** RC atomic fetch and add. */
    RC_FETCH_ADD(0x14, ATOMIC_ETH | REQUEST | ATOMIC | START | END),
    /** RC SEND with invalidate, last packet. */
    RC_SEND_LAST_WITH_INVALIDATE(0x16, IETH | PAYLOAD | REQUEST | COMPLETES | SEND | END),
    /** RC SEND with invalidate in one packet. */
    RC_SEND_ONLY_WITH_INVALIDATE(0x17, IETH | PAYLOAD | REQUEST | COMPLETES | TAKES_RECV_WQE | SEND | START | END),
    /** RC FLUSH (newer rxe only). */
    RC_FLUSH(0x1C, FETH | RETH | REQUEST | FLUSH | START | END),
    /** RC ATOMIC WRITE of 8 payload bytes (newer rxe only). */
    RC_ATOMIC_WRITE(0x1D, RETH | PAYLOAD | REQUEST | ATOMIC_WRITE | START | END),

    /** UC SEND, first packet. */
    UC_SEND_FIRST(0x20, PAYLOAD | REQUEST | TAKES_RECV_WQE | SEND | START),
    /** UC SEND, middle packet. */
    UC_SEND_MIDDLE(0x21, PAYLOAD | REQUEST | SEND | MIDDLE),
    /** UC SEND, last packet. */
    UC_SEND_LAST(0x22, PAYLOAD | REQUEST | COMPLETES | SEND | END),
    /** UC SEND with immediate, last packet. */
    UC_SEND_LAST_WITH_IMMEDIATE(0x23, IMMDT | PAYLOAD | REQUEST | COMPLETES | SEND | END),
    /** UC SEND in one packet. */
    UC_SEND_ONLY(0x24, PAYLOAD | REQUEST | COMPLETES | TAKES_RECV_WQE | SEND | START | END),
    /** UC SEND with immediate in one packet. */
    UC_SEND_ONLY_WITH_IMMEDIATE(0x25, IMMDT | PAYLOAD | REQUEST | COMPLETES | TAKES_RECV_WQE | SEND | START | END),
    /** UC RDMA WRITE, first packet. */
    UC_RDMA_WRITE_FIRST(0x26, RETH | PAYLOAD | REQUEST | WRITE | START),
    /** UC RDMA WRITE, middle packet. */
    UC_RDMA_WRITE_MIDDLE(0x27, PAYLOAD | REQUEST | WRITE | MIDDLE),
    /** UC RDMA WRITE, last packet. */
    UC_RDMA_WRITE_LAST(0x28, PAYLOAD | REQUEST | WRITE | END),
    /** UC RDMA WRITE with immediate, last packet. */
    UC_RDMA_WRITE_LAST_WITH_IMMEDIATE(0x29, IMMDT | PAYLOAD | REQUEST | WRITE | COMPLETES | TAKES_RECV_WQE | END),
    /** UC RDMA WRITE in one packet. */
    UC_RDMA_WRITE_ONLY(0x2A, RETH | PAYLOAD | REQUEST | WRITE | START | END),
    /** UC RDMA WRITE with immediate in one packet. */
    UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(
        0x2B, RETH | IMMDT | PAYLOAD | REQUEST | WRITE | COMPLETES | TAKES_RECV_WQE | START | END),

    /** UD SEND; every UD message is one packet. */
    UD_SEND_ONLY(0x64, DETH | PAYLOAD | REQUEST | COMPLETES | TAKES_RECV_WQE | SEND | START | END),
    /** UD SEND with immediate. */
    UD_SEND_ONLY_WITH_IMMEDIATE(
        0x65, DETH | IMMDT | PAYLOAD | REQUEST | COMPLETES | TAKES_RECV_WQE | SEND | START | END),

    /**
     * RoCEv2 congestion notification packet: BTH with BECN set and 16 reserved bytes. rxe neither sends nor
     * accepts it; it is here so the parser can name it and a sender can build one.
     */
    CNP(0x81, CNP_RESERVED | OpcodeMask.CNP);

    /** Length of the reserved block of a CNP. */
    public static final int CNP_RESERVED_LENGTH = 16;

    private static final Opcode[] BY_WIRE = new Opcode[256];
    private static final int HEADER_BITS = Integer.SIZE;

    static
    {
        for (final Opcode opcode : values())
        {
            BY_WIRE[opcode.wire] = opcode;
        }
    }

    private final int wire;
    private final int mask;
    private final int headerLength;
    private final int[] offsets = new int[HEADER_BITS];

    Opcode(final int wire, final int headerAndMeaning)
    {
        this.wire = wire;
        this.mask = BTH | headerAndMeaning | transportOf(wire);
        Arrays.fill(offsets, -1);

        // The order extension headers follow the BTH in, as the specification fixes it.
        int length = 0;
        length = place(BTH, BthFlyweight.LENGTH, length);
        length = place(CNP_RESERVED, CNP_RESERVED_LENGTH, length);
        length = place(FETH, 4, length);
        length = place(DETH, DethFlyweight.LENGTH, length);
        length = place(RETH, RethFlyweight.LENGTH, length);
        length = place(ATOMIC_ETH, AtomicEthFlyweight.LENGTH, length);
        length = place(AETH, AethFlyweight.LENGTH, length);
        length = place(ATOMIC_ACK_ETH, AtomicAckEthFlyweight.LENGTH, length);
        length = place(IMMDT, ImmDtFlyweight.LENGTH, length);
        length = place(IETH, IethFlyweight.LENGTH, length);
        this.headerLength = length;
    }

    private int place(final int header, final int length, final int offset)
    {
        if ((mask & header) == 0)
        {
            return offset;
        }
        offsets[Integer.numberOfTrailingZeros(header)] = offset;
        return offset + length;
    }

    private static int transportOf(final int wire)
    {
        return switch (wire & 0xE0)
        {
            case 0x00 -> OpcodeMask.RC;
            case 0x20 -> OpcodeMask.UC;
            case 0x60 -> OpcodeMask.UD;
            default -> 0;
        };
    }

    /**
     * Look an opcode up by its wire value.
     *
     * @param wire the BTH opcode byte; only the low 8 bits are used.
     * @return the opcode, or null if rdma4j does not know it.
     */
    public static Opcode fromWire(final int wire)
    {
        return BY_WIRE[wire & 0xFF];
    }

    /** @return the BTH opcode byte. */
    public int wire()
    {
        return wire;
    }

    /** @return the {@link OpcodeMask} bits: headers, meaning and transport. */
    public int mask()
    {
        return mask;
    }

    /**
     * @param bits one or more {@link OpcodeMask} bits.
     * @return true if this opcode has any of {@code bits}.
     */
    public boolean has(final int bits)
    {
        return (mask & bits) != 0;
    }

    /** @return the length of the BTH plus every extension header: where the payload starts. */
    public int headerLength()
    {
        return headerLength;
    }

    /**
     * Where an extension header starts, counted from the start of the BTH.
     *
     * @param header exactly one header bit of {@link OpcodeMask}, such as {@link OpcodeMask#RETH}.
     * @return the offset, or -1 if this opcode does not carry that header.
     */
    public int offset(final int header)
    {
        return offsets[Integer.numberOfTrailingZeros(header)];
    }
}
