package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;

/**
 * One packet decoded once: the addressing the ICRC covers, the opcode and its mask, every BTH field, the extension
 * headers' fields and the payload's bounds. {@link PacketParser} fills it from a received UDP payload;
 * {@link PacketBuilder} reads it as the description of a packet to write. Fields of headers the opcode lacks are 0
 * after parsing. One instance is reused from packet to packet by one thread.
 */
public final class PacketInfo
{
    private boolean ipv6;
    private int sourceAddress;
    private int destinationAddress;
    private long sourceHigh;
    private long sourceLow;
    private long destinationHigh;
    private long destinationLow;
    private int sourcePort;
    private int destinationPort = 4791;
    private int ipIdentification = Icrc.UNKNOWN_IP_ID;
    private int ipIdentificationGuess;
    private boolean dontFragment = true;
    private MemorySegment segment;
    private long offset;
    private int length;
    private Opcode opcode;
    private int mask;
    private boolean se;
    private boolean migReq;
    private int padCnt;
    private int tver;
    private int pkey = BthFlyweight.DEFAULT_PKEY;
    private boolean fecn;
    private boolean becn;
    private int destQp;
    private boolean ackReq;
    private int psn;
    private int qkey;
    private int srcQp;
    private long va;
    private int rkey;
    private long dmaLength;
    private int syndrome;
    private int msn;
    private int immediate;
    private int invalidateRkey;
    private long swapAdd;
    private long compare;
    private long orig;
    private int feth;
    private long payloadOffset;
    private int payloadLength;
    private int icrc;

    /** Create a description with the defaults of {@link #clear()}. */
    public PacketInfo()
    {
    }

    /**
     * Reset every field to its default: rxe's BTH values (P_Key 0xFFFF, no flags), DF set, identification unknown,
     * destination port 4791, everything else 0.
     *
     * @return this.
     */
    public PacketInfo clear()
    {
        ipv6 = false;
        sourceAddress = 0;
        destinationAddress = 0;
        sourceHigh = 0;
        sourceLow = 0;
        destinationHigh = 0;
        destinationLow = 0;
        sourcePort = 0;
        destinationPort = 4791;
        ipIdentification = Icrc.UNKNOWN_IP_ID;
        ipIdentificationGuess = 0;
        dontFragment = true;
        segment = null;
        offset = 0;
        length = 0;
        opcode = null;
        mask = 0;
        se = false;
        migReq = false;
        padCnt = 0;
        tver = 0;
        pkey = BthFlyweight.DEFAULT_PKEY;
        fecn = false;
        becn = false;
        destQp = 0;
        ackReq = false;
        psn = 0;
        qkey = 0;
        srcQp = 0;
        va = 0;
        rkey = 0;
        dmaLength = 0;
        syndrome = 0;
        msn = 0;
        immediate = 0;
        invalidateRkey = 0;
        swapAdd = 0;
        compare = 0;
        orig = 0;
        feth = 0;
        payloadOffset = 0;
        payloadLength = 0;
        icrc = 0;
        return this;
    }

    /**
     * Set the addressing the ICRC covers in one call; the IPv6 addresses read 0 after it, so that with a parse
     * that accepts the packet every field is set (the receive path does not clear the description first).
     *
     * @param sourceAddress      the IPv4 source address, most significant byte first.
     * @param sourcePort         the UDP source port.
     * @param destinationAddress the IPv4 destination address.
     * @param destinationPort    the UDP destination port.
     * @param ipIdentification   the IPv4 identification, or {@link Icrc#UNKNOWN_IP_ID}.
     * @return this.
     */
    public PacketInfo network(
        final int sourceAddress,
        final int sourcePort,
        final int destinationAddress,
        final int destinationPort,
        final int ipIdentification)
    {
        this.ipv6 = false;
        this.sourceAddress = sourceAddress;
        this.sourceHigh = 0;
        this.sourceLow = 0;
        this.destinationHigh = 0;
        this.destinationLow = 0;
        this.sourcePort = sourcePort;
        this.destinationAddress = destinationAddress;
        this.destinationPort = destinationPort;
        this.ipIdentification = ipIdentification;
        this.ipIdentificationGuess = 0;
        return this;
    }

    /**
     * Set the addressing of an IPv6 datagram in one call; the IPv4 addresses become 0 and the identification 0
     * (an IPv6 header has none).
     *
     * @param sourceHigh      the first 8 bytes of the IPv6 source address, big-endian.
     * @param sourceLow       its last 8 bytes.
     * @param sourcePort      the UDP source port.
     * @param destinationHigh the first 8 bytes of the IPv6 destination address.
     * @param destinationLow  its last 8 bytes.
     * @param destinationPort the UDP destination port.
     * @return this.
     */
    public PacketInfo networkIpv6(
        final long sourceHigh,
        final long sourceLow,
        final int sourcePort,
        final long destinationHigh,
        final long destinationLow,
        final int destinationPort)
    {
        this.ipv6 = true;
        this.sourceAddress = 0;
        this.destinationAddress = 0;
        this.sourceHigh = sourceHigh;
        this.sourceLow = sourceLow;
        this.sourcePort = sourcePort;
        this.destinationHigh = destinationHigh;
        this.destinationLow = destinationLow;
        this.destinationPort = destinationPort;
        this.ipIdentification = 0;
        this.ipIdentificationGuess = 0;
        return this;
    }

    /** @return true if the datagram is IPv6 ({@link #networkIpv6}), false if IPv4 ({@link #network}). */
    public boolean ipv6()
    {
        return ipv6;
    }

    /** @return the first 8 bytes of the IPv6 source address, big-endian; 0 for IPv4. */
    public long sourceHigh()
    {
        return sourceHigh;
    }

    /** @return the last 8 bytes of the IPv6 source address; 0 for IPv4. */
    public long sourceLow()
    {
        return sourceLow;
    }

    /** @return the first 8 bytes of the IPv6 destination address, big-endian; 0 for IPv4. */
    public long destinationHigh()
    {
        return destinationHigh;
    }

    /** @return the last 8 bytes of the IPv6 destination address; 0 for IPv4. */
    public long destinationLow()
    {
        return destinationLow;
    }

    /**
     * @param bits one or more {@link OpcodeMask} bits.
     * @return true if the packet's mask has any of them.
     */
    public boolean has(final int bits)
    {
        return (mask & bits) != 0;
    }

    /** @return the IPv4 source address, most significant byte first (input to the ICRC). */
    public int sourceAddress()
    {
        return sourceAddress;
    }

    /**
     * @param sourceAddress the IPv4 source address, most significant byte first (input to the ICRC).
     * @return this.
     */
    public PacketInfo sourceAddress(final int sourceAddress)
    {
        this.sourceAddress = sourceAddress;
        return this;
    }

    /** @return the IPv4 destination address: a local address or a multicast group. */
    public int destinationAddress()
    {
        return destinationAddress;
    }

    /**
     * @param destinationAddress the IPv4 destination address: a local address or a multicast group.
     * @return this.
     */
    public PacketInfo destinationAddress(final int destinationAddress)
    {
        this.destinationAddress = destinationAddress;
        return this;
    }

    /** @return the UDP source port (covered by the ICRC, otherwise ignored). */
    public int sourcePort()
    {
        return sourcePort;
    }

    /**
     * @param sourcePort the UDP source port (covered by the ICRC, otherwise ignored).
     * @return this.
     */
    public PacketInfo sourcePort(final int sourcePort)
    {
        this.sourcePort = sourcePort;
        return this;
    }

    /** @return the UDP destination port. */
    public int destinationPort()
    {
        return destinationPort;
    }

    /**
     * @param destinationPort the UDP destination port.
     * @return this.
     */
    public PacketInfo destinationPort(final int destinationPort)
    {
        this.destinationPort = destinationPort;
        return this;
    }

    /**
     * @return the IPv4 identification: before parsing the known one or {@link Icrc#UNKNOWN_IP_ID}, after it the
     * one the ICRC verified with; when building, the one the link sends with.
     */
    public int ipIdentification()
    {
        return ipIdentification;
    }

    /**
     * @param ipIdentification the IPv4 identification, or {@link Icrc#UNKNOWN_IP_ID} on receive when unseen.
     * @return this.
     */
    public PacketInfo ipIdentification(final int ipIdentification)
    {
        this.ipIdentification = ipIdentification;
        return this;
    }

    /**
     * @return where the identification is unknown, the one the ICRC check tries first (the receive path passes on
     * the link's: a datagram's place in the GRO run it came in); 0 after {@link #network}.
     */
    public int ipIdentificationGuess()
    {
        return ipIdentificationGuess;
    }

    /**
     * @param guess the identification to try first when it is unknown, 0..65535.
     * @return this.
     */
    public PacketInfo ipIdentificationGuess(final int guess)
    {
        this.ipIdentificationGuess = guess;
        return this;
    }

    /** @return the IPv4 DF flag; rxe always sets it. */
    public boolean dontFragment()
    {
        return dontFragment;
    }

    /**
     * @param dontFragment the IPv4 DF flag; rxe always sets it.
     * @return this.
     */
    public PacketInfo dontFragment(final boolean dontFragment)
    {
        this.dontFragment = dontFragment;
        return this;
    }

    /** @return the memory holding the parsed packet. */
    public MemorySegment segment()
    {
        return segment;
    }

    /**
     * @param segment the memory holding the parsed packet.
     * @return this.
     */
    public PacketInfo segment(final MemorySegment segment)
    {
        this.segment = segment;
        return this;
    }

    /** @return where the parsed packet's BTH starts in {@link #segment()}. */
    public long offset()
    {
        return offset;
    }

    /**
     * @param offset where the parsed packet's BTH starts in {@link #segment()}.
     * @return this.
     */
    public PacketInfo offset(final long offset)
    {
        this.offset = offset;
        return this;
    }

    /** @return the UDP payload's length: headers, payload, pad and ICRC. */
    public int length()
    {
        return length;
    }

    /**
     * @param length the UDP payload's length: headers, payload, pad and ICRC.
     * @return this.
     */
    public PacketInfo length(final int length)
    {
        this.length = length;
        return this;
    }

    /** @return the opcode. */
    public Opcode opcode()
    {
        return opcode;
    }

    /**
     * Set the opcode and, with it, the mask.
     *
     * @param opcode the opcode.
     * @return this.
     */
    public PacketInfo opcode(final Opcode opcode)
    {
        this.opcode = opcode;
        this.mask = null == opcode ? 0 : opcode.mask();
        return this;
    }

    /** @return the opcode's {@link OpcodeMask} bits. */
    public int mask()
    {
        return mask;
    }

    /** @return BTH solicited event bit. */
    public boolean se()
    {
        return se;
    }

    /**
     * @param se BTH solicited event bit.
     * @return this.
     */
    public PacketInfo se(final boolean se)
    {
        this.se = se;
        return this;
    }

    /** @return BTH MigReq bit; rxe sends 0. */
    public boolean migReq()
    {
        return migReq;
    }

    /**
     * @param migReq BTH MigReq bit; rxe sends 0.
     * @return this.
     */
    public PacketInfo migReq(final boolean migReq)
    {
        this.migReq = migReq;
        return this;
    }

    /** @return BTH PadCnt, 0..3. */
    public int padCnt()
    {
        return padCnt;
    }

    /**
     * @param padCnt BTH PadCnt, 0..3.
     * @return this.
     */
    public PacketInfo padCnt(final int padCnt)
    {
        this.padCnt = padCnt;
        return this;
    }

    /** @return BTH transport version. */
    public int tver()
    {
        return tver;
    }

    /**
     * @param tver BTH transport version.
     * @return this.
     */
    public PacketInfo tver(final int tver)
    {
        this.tver = tver;
        return this;
    }

    /** @return BTH P_Key. */
    public int pkey()
    {
        return pkey;
    }

    /**
     * @param pkey BTH P_Key.
     * @return this.
     */
    public PacketInfo pkey(final int pkey)
    {
        this.pkey = pkey;
        return this;
    }

    /** @return BTH FECN bit. */
    public boolean fecn()
    {
        return fecn;
    }

    /**
     * @param fecn BTH FECN bit.
     * @return this.
     */
    public PacketInfo fecn(final boolean fecn)
    {
        this.fecn = fecn;
        return this;
    }

    /** @return BTH BECN bit. */
    public boolean becn()
    {
        return becn;
    }

    /**
     * @param becn BTH BECN bit.
     * @return this.
     */
    public PacketInfo becn(final boolean becn)
    {
        this.becn = becn;
        return this;
    }

    /** @return BTH destination QP number, 24 bits. */
    public int destQp()
    {
        return destQp;
    }

    /**
     * @param destQp BTH destination QP number, 24 bits.
     * @return this.
     */
    public PacketInfo destQp(final int destQp)
    {
        this.destQp = destQp;
        return this;
    }

    /** @return BTH AckReq bit. */
    public boolean ackReq()
    {
        return ackReq;
    }

    /**
     * @param ackReq BTH AckReq bit.
     * @return this.
     */
    public PacketInfo ackReq(final boolean ackReq)
    {
        this.ackReq = ackReq;
        return this;
    }

    /** @return BTH PSN, 24 bits. */
    public int psn()
    {
        return psn;
    }

    /**
     * @param psn BTH PSN, 24 bits.
     * @return this.
     */
    public PacketInfo psn(final int psn)
    {
        this.psn = psn;
        return this;
    }

    /** @return DETH Q_Key. */
    public int qkey()
    {
        return qkey;
    }

    /**
     * @param qkey DETH Q_Key.
     * @return this.
     */
    public PacketInfo qkey(final int qkey)
    {
        this.qkey = qkey;
        return this;
    }

    /** @return DETH source QP number, 24 bits. */
    public int srcQp()
    {
        return srcQp;
    }

    /**
     * @param srcQp DETH source QP number, 24 bits.
     * @return this.
     */
    public PacketInfo srcQp(final int srcQp)
    {
        this.srcQp = srcQp;
        return this;
    }

    /** @return virtual address of the RETH or the AtomicETH (no opcode has both). */
    public long va()
    {
        return va;
    }

    /**
     * @param va virtual address of the RETH or the AtomicETH (no opcode has both).
     * @return this.
     */
    public PacketInfo va(final long va)
    {
        this.va = va;
        return this;
    }

    /** @return R_Key of the RETH or the AtomicETH. */
    public int rkey()
    {
        return rkey;
    }

    /**
     * @param rkey R_Key of the RETH or the AtomicETH.
     * @return this.
     */
    public PacketInfo rkey(final int rkey)
    {
        this.rkey = rkey;
        return this;
    }

    /** @return RETH DMA length, unsigned 32 bits. */
    public long dmaLength()
    {
        return dmaLength;
    }

    /**
     * @param dmaLength RETH DMA length, unsigned 32 bits.
     * @return this.
     */
    public PacketInfo dmaLength(final long dmaLength)
    {
        this.dmaLength = dmaLength;
        return this;
    }

    /** @return AETH syndrome, 0..255. */
    public int syndrome()
    {
        return syndrome;
    }

    /**
     * @param syndrome AETH syndrome, 0..255.
     * @return this.
     */
    public PacketInfo syndrome(final int syndrome)
    {
        this.syndrome = syndrome;
        return this;
    }

    /** @return AETH MSN, 24 bits. */
    public int msn()
    {
        return msn;
    }

    /**
     * @param msn AETH MSN, 24 bits.
     * @return this.
     */
    public PacketInfo msn(final int msn)
    {
        this.msn = msn;
        return this;
    }

    /** @return ImmDt immediate value. */
    public int immediate()
    {
        return immediate;
    }

    /**
     * @param immediate ImmDt immediate value.
     * @return this.
     */
    public PacketInfo immediate(final int immediate)
    {
        this.immediate = immediate;
        return this;
    }

    /** @return IETH R_Key to invalidate. */
    public int invalidateRkey()
    {
        return invalidateRkey;
    }

    /**
     * @param invalidateRkey IETH R_Key to invalidate.
     * @return this.
     */
    public PacketInfo invalidateRkey(final int invalidateRkey)
    {
        this.invalidateRkey = invalidateRkey;
        return this;
    }

    /** @return AtomicETH swap or add operand. */
    public long swapAdd()
    {
        return swapAdd;
    }

    /**
     * @param swapAdd AtomicETH swap or add operand.
     * @return this.
     */
    public PacketInfo swapAdd(final long swapAdd)
    {
        this.swapAdd = swapAdd;
        return this;
    }

    /** @return AtomicETH compare operand. */
    public long compare()
    {
        return compare;
    }

    /**
     * @param compare AtomicETH compare operand.
     * @return this.
     */
    public PacketInfo compare(final long compare)
    {
        this.compare = compare;
        return this;
    }

    /** @return AtomicAckETH original remote value. */
    public long orig()
    {
        return orig;
    }

    /**
     * @param orig AtomicAckETH original remote value.
     * @return this.
     */
    public PacketInfo orig(final long orig)
    {
        this.orig = orig;
        return this;
    }

    /** @return FETH word of FLUSH, kept raw. */
    public int feth()
    {
        return feth;
    }

    /**
     * @param feth FETH word of FLUSH, kept raw.
     * @return this.
     */
    public PacketInfo feth(final int feth)
    {
        this.feth = feth;
        return this;
    }

    /** @return where the payload starts in {@link #segment()}. */
    public long payloadOffset()
    {
        return payloadOffset;
    }

    /**
     * @param payloadOffset where the payload starts in {@link #segment()}.
     * @return this.
     */
    public PacketInfo payloadOffset(final long payloadOffset)
    {
        this.payloadOffset = payloadOffset;
        return this;
    }

    /** @return the payload's length, pad excluded. */
    public int payloadLength()
    {
        return payloadLength;
    }

    /**
     * @param payloadLength the payload's length, pad excluded.
     * @return this.
     */
    public PacketInfo payloadLength(final int payloadLength)
    {
        this.payloadLength = payloadLength;
        return this;
    }

    /** @return the ICRC value the packet carries. */
    public int icrc()
    {
        return icrc;
    }

    /**
     * @param icrc the ICRC value the packet carries.
     * @return this.
     */
    public PacketInfo icrc(final int icrc)
    {
        this.icrc = icrc;
        return this;
    }
}
