package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;

import static io.rdma4j.soft.wire.WireLayouts.U32;

/**
 * Decodes one received RoCEv2 UDP payload into a {@link PacketInfo}, checking it in Linux rxe's order and stopping
 * at the first failure: length against a BTH and an ICRC, a known opcode, length against the opcode's headers,
 * transport version 0, destination QP not 0, the default partition, PadCnt against the bytes left, and the ICRC.
 * A refusal is a {@link DropCause}, never an exception, whatever the bytes.
 * <p>
 * What is deliberately not checked, as rxe does not check it either: the pad bytes' value (senders write zeros,
 * rxe ignores them, so a receiver gains nothing by refusing), MigReq, FECN/BECN and the reserved bits, a total length
 * that is not a multiple of 4, and payload bytes on opcodes without {@link OpcodeMask#PAYLOAD} (the responder and
 * completer judge lengths). Checks that need QP state (type, state, addresses, Q_Key, multicast membership), and
 * running the ICRC after them, belong to the device's receive path ({@code io.rdma4j.soft.receive.ReceivePath}), which
 * calls {@link #parseHeaders}. A congestion notification packet, which rxe drops as unknown, is accepted here with a
 * mask that has neither {@link OpcodeMask#REQUEST} nor {@link OpcodeMask#ACK}: the receive path must drop or count
 * it.
 * <p>
 * One instance per thread; nothing is allocated per packet (see {@link Icrc} for the one condition).
 */
public final class PacketParser extends PacketFlyweights
{
    /** Create a parser for one thread. */
    public PacketParser()
    {
    }

    /**
     * Check and decode a packet. The addressing fields of {@code info} (see {@link PacketInfo#network}) must hold the
     * datagram's IP and UDP values; on acceptance its identification is the one the ICRC verified with.
     *
     * @param segment memory holding the UDP payload.
     * @param offset  where the BTH starts.
     * @param length  the UDP payload's length, ICRC included.
     * @param info    receives the decoded fields; partly filled when the packet is refused.
     * @return {@link DropCause#NONE} if accepted, else the first check that failed.
     */
    public DropCause parse(final MemorySegment segment, final long offset, final int length, final PacketInfo info)
    {
        final DropCause cause = parseHeaders(segment, offset, length, info);
        if (cause != DropCause.NONE)
        {
            return cause;
        }
        final int ipId = icrc.check(segment, offset, length, info);
        if (ipId < 0)
        {
            return DropCause.ICRC_MISMATCH;
        }
        info.ipIdentification(ipId);
        return DropCause.NONE;
    }

    /**
     * Check and decode everything but the ICRC, for packets whose integrity is known some other way.
     *
     * @param segment memory holding the UDP payload.
     * @param offset  where the BTH starts.
     * @param length  the UDP payload's length, ICRC included.
     * @param info    receives the decoded fields; partly filled when the packet is refused.
     * @return {@link DropCause#NONE} if accepted, else the first check that failed.
     */
    public DropCause parseHeaders(
        final MemorySegment segment, final long offset, final int length, final PacketInfo info)
    {
        info.segment(segment).offset(offset).length(length).opcode(null).payloadOffset(0).payloadLength(0);
        if (null == segment || offset < 0 || length < Icrc.MIN_LENGTH || offset > segment.byteSize() - length)
        {
            return DropCause.TOO_SHORT;
        }

        final Opcode opcode = Opcode.fromWire(decodeBth(segment, offset, info));
        if (null == opcode)
        {
            return DropCause.UNKNOWN_OPCODE;
        }
        info.opcode(opcode);
        final int headerLength = opcode.headerLength();
        if (length < headerLength + Icrc.LENGTH)
        {
            return DropCause.HEADER_TRUNCATED;
        }
        if (info.tver() != 0)
        {
            return DropCause.BAD_TRANSPORT_VERSION;
        }
        if (info.destQp() == 0)
        {
            return DropCause.BAD_QPN;
        }
        // The full-membership bit is ours to grant: rxe's own P_Key is full, so either membership is accepted.
        if ((info.pkey() & 0x7FFF) != 0x7FFF)
        {
            return DropCause.BAD_PKEY;
        }
        final int payloadLength = length - headerLength - Icrc.LENGTH - info.padCnt();
        if (payloadLength < 0)
        {
            return DropCause.BAD_PAD;
        }
        info.payloadOffset(offset + headerLength).payloadLength(payloadLength).icrc(Icrc.read(segment, offset, length));
        decodeExtensions(segment, offset, opcode, info);
        return DropCause.NONE;
    }

    /**
     * The BTH's fields into {@code info}, from two loads (its first eight bytes and its last four) rather than one
     * checked load a field: ten of those were a fifth of a small packet's parse.
     *
     * @return the opcode byte.
     */
    private static int decodeBth(final MemorySegment segment, final long offset, final PacketInfo info)
    {
        // opcode, flags (SE, M, PadCnt, TVer), P_Key, FECN/BECN, DestQP
        final long first = segment.get(WireLayouts.U64, offset);
        // AckReq, PSN
        final int second = segment.get(WireLayouts.U32, offset + BthFlyweight.ACK_REQ_OFFSET);
        final int flags = (int)(first >>> 48) & 0xFF;
        final int fecnBecn = (int)(first >>> 24) & 0xFF;
        info.se((flags & BthFlyweight.SE_BIT) != 0)
            .migReq((flags & BthFlyweight.MIG_REQ_BIT) != 0)
            .padCnt((flags >>> BthFlyweight.PAD_CNT_SHIFT) & 3)
            .tver(flags & BthFlyweight.TVER_MASK)
            .pkey((int)(first >>> 32) & 0xFFFF)
            .fecn((fecnBecn & BthFlyweight.FECN_BIT) != 0)
            .becn((fecnBecn & BthFlyweight.BECN_BIT) != 0)
            .destQp((int)first & WireLayouts.MASK_24)
            .ackReq((second >>> 24 & BthFlyweight.ACK_REQ_BIT) != 0)
            .psn(second & WireLayouts.MASK_24);
        return (int)(first >>> 56) & 0xFF;
    }

    private void decodeExtensions(
        final MemorySegment segment, final long offset, final Opcode opcode, final PacketInfo info)
    {
        final int mask = opcode.mask();
        if ((mask & OpcodeMask.DETH) != 0)
        {
            // Q_Key, then a reserved byte and the source QP: one load
            final long dethWords = segment.get(WireLayouts.U64, offset + opcode.offset(OpcodeMask.DETH));
            info.qkey((int)(dethWords >>> 32)).srcQp((int)dethWords & WireLayouts.MASK_24);
        }
        else
        {
            info.qkey(0).srcQp(0);
        }

        if ((mask & OpcodeMask.RETH) != 0)
        {
            reth.wrap(segment, offset + opcode.offset(OpcodeMask.RETH));
            info.va(reth.va()).rkey(reth.rkey()).dmaLength(reth.dmaLength());
        }
        else if ((mask & OpcodeMask.ATOMIC_ETH) != 0)
        {
            atomicEth.wrap(segment, offset + opcode.offset(OpcodeMask.ATOMIC_ETH));
            info.va(atomicEth.va()).rkey(atomicEth.rkey()).dmaLength(0);
        }
        else
        {
            info.va(0).rkey(0).dmaLength(0);
        }

        if ((mask & OpcodeMask.ATOMIC_ETH) != 0)
        {
            info.swapAdd(atomicEth.swapAdd()).compare(atomicEth.compare());
        }
        else
        {
            info.swapAdd(0).compare(0);
        }

        if ((mask & OpcodeMask.AETH) != 0)
        {
            aeth.wrap(segment, offset + opcode.offset(OpcodeMask.AETH));
            info.syndrome(aeth.syndrome()).msn(aeth.msn());
        }
        else
        {
            info.syndrome(0).msn(0);
        }

        if ((mask & OpcodeMask.ATOMIC_ACK_ETH) != 0)
        {
            info.orig(atomicAckEth.wrap(segment, offset + opcode.offset(OpcodeMask.ATOMIC_ACK_ETH)).orig());
        }
        else
        {
            info.orig(0);
        }

        info.immediate((mask & OpcodeMask.IMMDT) != 0 ?
            immDt.wrap(segment, offset + opcode.offset(OpcodeMask.IMMDT)).immediate() : 0);
        info.invalidateRkey((mask & OpcodeMask.IETH) != 0 ?
            ieth.wrap(segment, offset + opcode.offset(OpcodeMask.IETH)).rkey() : 0);
        info.feth((mask & OpcodeMask.FETH) != 0 ? segment.get(U32, offset + opcode.offset(OpcodeMask.FETH)) : 0);
    }
}
