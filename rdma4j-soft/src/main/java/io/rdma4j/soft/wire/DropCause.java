package io.rdma4j.soft.wire;

/**
 * Why {@link PacketParser} refused a packet, in the order the checks run (Linux rxe's order);
 * {@link #NONE} means the packet was accepted. The counter each cause bumps, and its name, come from
 * the device's one counter enum ({@code ReceivePath.counterOf}).
 */
public enum DropCause
{
    /** Accepted. */
    NONE,
    /** Shorter than a BTH and an ICRC, or the bounds given lie outside the memory. */
    TOO_SHORT,
    /** The BTH opcode is not in {@link Opcode}'s table. */
    UNKNOWN_OPCODE,
    /** Shorter than the opcode's headers and an ICRC. */
    HEADER_TRUNCATED,
    /** BTH TVer is not 0. */
    BAD_TRANSPORT_VERSION,
    /** BTH destination QP is 0: QP0, the subnet management QP, does not exist on RoCE. */
    BAD_QPN,
    /** P_Key's low 15 bits are not 0x7FFF, the default partition. */
    BAD_PKEY,
    /** PadCnt exceeds the bytes left after the headers. */
    BAD_PAD,
    /** The ICRC matches for no IPv4 identification (or not for the known one). */
    ICRC_MISMATCH
}
