package io.rdma4j.soft.wire;

/**
 * Bits of an {@link Opcode}'s mask: which headers a packet carries, what it means, and which transport it belongs
 * to. Code asks the mask ("has a RETH?", "last packet of a message?") rather than naming opcodes, so one test
 * covers every opcode that shares the property.
 */
public final class OpcodeMask
{
    /** Base transport header; every opcode has it. */
    public static final int BTH = 1;
    /** RDMA extended transport header. */
    public static final int RETH = 1 << 1;
    /** ACK extended transport header. */
    public static final int AETH = 1 << 2;
    /** Datagram extended transport header (UD). */
    public static final int DETH = 1 << 3;
    /** Immediate data header. */
    public static final int IMMDT = 1 << 4;
    /** Invalidate extended transport header. */
    public static final int IETH = 1 << 5;
    /** Atomic extended transport header. */
    public static final int ATOMIC_ETH = 1 << 6;
    /** Atomic acknowledge extended transport header. */
    public static final int ATOMIC_ACK_ETH = 1 << 7;
    /** Flush extended transport header (FLUSH, newer rxe). */
    public static final int FETH = 1 << 8;
    /** The packet may carry payload bytes after its headers. */
    public static final int PAYLOAD = 1 << 9;
    /** The 16 reserved bytes after the BTH of a congestion notification packet. */
    public static final int CNP_RESERVED = 1 << 10;

    /** Every header bit. */
    public static final int HEADERS = BTH | RETH | AETH | DETH | IMMDT | IETH | ATOMIC_ETH | ATOMIC_ACK_ETH | FETH |
        CNP_RESERVED;

    /** Sent by a requester, handled by the responder. */
    public static final int REQUEST = 1 << 12;
    /** Sent by a responder (ACK, NAK, READ or ATOMIC response), handled by the completer. */
    public static final int ACK = 1 << 13;
    /** Another name for {@link #ACK}. */
    public static final int RESPONSE = ACK;
    /** Part of a SEND. */
    public static final int SEND = 1 << 14;
    /** Part of an RDMA WRITE. */
    public static final int WRITE = 1 << 15;
    /** Part of an RDMA READ (request or response). */
    public static final int READ = 1 << 16;
    /** An atomic request (COMPARE_SWAP, FETCH_ADD). */
    public static final int ATOMIC = 1 << 17;
    /** The first packet of the message consumes a receive WQE at the responder. */
    public static final int TAKES_RECV_WQE = 1 << 18;
    /** The packet completes a receive WQE (last packet of a SEND, WRITE with immediate). */
    public static final int COMPLETES = 1 << 19;
    /** First packet of a message. */
    public static final int START = 1 << 20;
    /** Neither first nor last packet of a message. */
    public static final int MIDDLE = 1 << 21;
    /** Last packet of a message. */
    public static final int END = 1 << 22;
    /** A FLUSH request (newer rxe). */
    public static final int FLUSH = 1 << 23;
    /** An ATOMIC WRITE request (newer rxe). */
    public static final int ATOMIC_WRITE = 1 << 24;
    /** A congestion notification packet: neither request nor response. */
    public static final int CNP = 1 << 25;

    /** Reliable connected transport. */
    public static final int RC = 1 << 28;
    /** Unreliable connected transport. */
    public static final int UC = 1 << 29;
    /** Unreliable datagram transport. */
    public static final int UD = 1 << 30;
    /** Every transport bit. */
    public static final int TRANSPORTS = RC | UC | UD;

    private OpcodeMask()
    {
    }
}
