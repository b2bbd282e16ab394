package io.rdma4j.soft.wire;

/**
 * Why {@link PacketParser} refused a packet, in the order the checks run (Linux rxe's order). Each value names the
 * counter the receive path bumps for it; {@link #NONE} means the packet was accepted.
 */
public enum DropCause
{
    /** Accepted. */
    NONE("rcvd_pkts"),
    /** Shorter than a BTH and an ICRC, or the bounds given lie outside the memory. */
    TOO_SHORT("rcvd_too_short"),
    /** The BTH opcode is not in {@link Opcode}'s table. */
    UNKNOWN_OPCODE("rcvd_unknown_opcode"),
    /** Shorter than the opcode's headers and an ICRC. */
    HEADER_TRUNCATED("rcvd_hdr_truncated"),
    /** BTH TVer is not 0. */
    BAD_TRANSPORT_VERSION("rcvd_bad_tver"),
    /** BTH destination QP is 0: QP0, the subnet management QP, does not exist on RoCE. */
    BAD_QPN("rcvd_bad_qpn"),
    /** P_Key's low 15 bits are not 0x7FFF, the default partition. */
    BAD_PKEY("rcvd_bad_pkey"),
    /** PadCnt exceeds the bytes left after the headers. */
    BAD_PAD("rcvd_bad_pad"),
    /** The ICRC matches for no IPv4 identification (or not for the known one). */
    ICRC_MISMATCH("icrc_err");

    private final String counterName;

    DropCause(final String counterName)
    {
        this.counterName = counterName;
    }

    /**
     * {@link Enum#name()} is final, so the counter's name has its own accessor.
     *
     * @return the snake_case name of the counter this cause bumps.
     */
    public String counterName()
    {
        return counterName;
    }
}
