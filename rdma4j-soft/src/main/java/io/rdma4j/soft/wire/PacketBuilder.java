package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;

import static io.rdma4j.soft.wire.WireLayouts.U32;

/**
 * Writes complete RoCEv2 UDP payloads: BTH, the extension headers the opcode's mask names, payload, zero pad and
 * ICRC. The packet is described by a {@link PacketInfo}: its opcode, BTH fields (PadCnt is computed; the rest is
 * written as given, so {@link PacketInfo#clear()}'s defaults produce what rxe sends: P_Key 0xFFFF, TVer 0, MigReq
 * and FECN/BECN clear), extension header fields and addressing, which the ICRC covers.
 * <p>
 * To send through a {@link java.nio.ByteBuffer}-based link without allocating, build into a segment whose
 * {@code asByteBuffer()} view is made once and kept. One instance per thread; nothing is allocated per packet.
 */
public final class PacketBuilder extends PacketFlyweights
{
    /** The packet {@link #buildWithoutIcrc} built last, whose ICRC {@link #lastIcrc} computes. */
    private PacketInfo lastSpec;
    private MemorySegment lastDestination;
    private long lastOffset;
    private int lastLength;
    private final DeferredIcrc lastIcrc = () ->
    {
        icrc.generate(lastDestination, lastOffset, lastLength, lastSpec);
        return true;
    };

    /** Create a builder for one thread. */
    public PacketBuilder()
    {
    }

    /**
     * @param opcode        the packet's opcode.
     * @param payloadLength the payload's length, pad excluded.
     * @return the UDP payload's length: headers, payload, pad and ICRC.
     */
    public static int length(final Opcode opcode, final int payloadLength)
    {
        return opcode.headerLength() + payloadLength + pad(payloadLength) + Icrc.LENGTH;
    }

    /**
     * @param payloadLength the payload's length.
     * @return the pad that makes it a multiple of 4, 0..3.
     */
    public static int pad(final int payloadLength)
    {
        return -payloadLength & 3;
    }

    /**
     * Write a packet without payload, or whose payload the caller has already put after the headers.
     *
     * @param spec          the packet's fields; its opcode must be set and its identification not negative.
     * @param payloadLength how many payload bytes already lie after the headers.
     * @param destination   where to write.
     * @param offset        where the BTH goes.
     * @return the UDP payload's length.
     * @throws IllegalArgumentException if the spec has no opcode, a negative identification, or payload where the
     *                                  opcode has none.
     */
    public int build(final PacketInfo spec, final int payloadLength, final MemorySegment destination, final long offset)
    {
        return buildAround(spec, payloadLength, destination, offset, true);
    }

    /**
     * As {@link #build(PacketInfo, int, MemorySegment, long)}, with the ICRC left 0 for the sender to compute if
     * the packet's path needs one: {@link #lastIcrc()} writes it, over the same bytes and spec.
     *
     * @return the UDP payload's length.
     */
    public int buildWithoutIcrc(
        final PacketInfo spec, final int payloadLength, final MemorySegment destination, final long offset)
    {
        final int length = buildAround(spec, payloadLength, destination, offset, false);
        lastSpec = spec;
        lastDestination = destination;
        lastOffset = offset;
        lastLength = length;
        return length;
    }

    /**
     * @return the ICRC of the packet {@link #buildWithoutIcrc} built last, for the link to compute where the
     *         packet's path needs one: one object for every packet, so that none is made per packet.
     */
    public DeferredIcrc lastIcrc()
    {
        return lastIcrc;
    }

    /** Headers, pad and (or not) the ICRC around a payload that already lies after the headers. */
    private int buildAround(
        final PacketInfo spec, final int payloadLength, final MemorySegment destination, final long offset,
        final boolean withIcrc)
    {
        final Opcode opcode = spec.opcode();
        validate(spec, opcode, payloadLength);
        writeHeaders(spec, opcode, payloadLength, destination, offset);
        return finish(spec, opcode, payloadLength, destination, offset, withIcrc);
    }

    /**
     * Write a packet's headers only, for a sender that sends the payload from where it lies: the ICRC is then
     * computed over the parts ({@link Icrc#compute(MemorySegment, long, int, MemorySegment, long, int, int,
     * int, int, int, int, int, boolean)}) and the pad and ICRC go after the payload.
     *
     * @param spec          the packet's fields; its opcode must be set and its identification not negative.
     * @param payloadLength the payload's length (it sets the pad count).
     * @param destination   where to write.
     * @param offset        where the BTH goes.
     * @return the headers' length.
     */
    public int buildHeaders(
        final PacketInfo spec, final int payloadLength, final MemorySegment destination, final long offset)
    {
        final Opcode opcode = spec.opcode();
        validate(spec, opcode, payloadLength);
        writeHeaders(spec, opcode, payloadLength, destination, offset);
        return opcode.headerLength();
    }

    /**
     * Write a packet, copying its payload from {@code source}.
     *
     * @param spec          the packet's fields; its opcode must be set and its identification not negative.
     * @param source        memory holding the payload.
     * @param sourceOffset  where the payload starts in {@code source}.
     * @param payloadLength the payload's length.
     * @param destination   where to write.
     * @param offset        where the BTH goes.
     * @return the UDP payload's length.
     * @throws IllegalArgumentException if the spec has no opcode, a negative identification, or payload where the
     *                                  opcode has none.
     */
    public int build(
        final PacketInfo spec,
        final MemorySegment source,
        final long sourceOffset,
        final int payloadLength,
        final MemorySegment destination,
        final long offset)
    {
        final Opcode opcode = spec.opcode();
        validate(spec, opcode, payloadLength);
        writeHeaders(spec, opcode, payloadLength, destination, offset);
        if (payloadLength > 0)
        {
            MemorySegment.copy(source, sourceOffset, destination, offset + opcode.headerLength(), payloadLength);
        }
        return finish(spec, opcode, payloadLength, destination, offset, true);
    }

    /**
     * Write a packet whose payload is the whole of {@code payload}.
     *
     * @param spec        the packet's fields; its opcode must be set and its identification not negative.
     * @param payload     the payload, possibly empty.
     * @param destination where to write.
     * @param offset      where the BTH goes.
     * @return the UDP payload's length.
     */
    public int build(
        final PacketInfo spec, final MemorySegment payload, final MemorySegment destination, final long offset)
    {
        return build(spec, payload, 0, Math.toIntExact(payload.byteSize()), destination, offset);
    }

    private static void validate(final PacketInfo spec, final Opcode opcode, final int payloadLength)
    {
        if (null == opcode)
        {
            throw new IllegalArgumentException("no opcode");
        }
        if (spec.ipIdentification() < 0)
        {
            throw new IllegalArgumentException("IPv4 identification unknown: set the one the link sends with");
        }
        if (payloadLength < 0 || (payloadLength > 0 && !opcode.has(OpcodeMask.PAYLOAD)))
        {
            throw new IllegalArgumentException(opcode + " cannot carry " + payloadLength + " payload bytes");
        }
    }

    private void writeHeaders(
        final PacketInfo spec,
        final Opcode opcode,
        final int payloadLength,
        final MemorySegment destination,
        final long offset)
    {
        bth.wrap(destination, offset)
            .opcode(opcode.wire())
            .flags(0)
            .se(spec.se())
            .migReq(spec.migReq())
            .padCnt(pad(payloadLength))
            .tver(spec.tver())
            .pkey(spec.pkey());
        // Whole words first so the reserved bits are zero, then the flag bits.
        destination.set(U32, offset + BthFlyweight.FECN_BECN_OFFSET, spec.destQp() & WireLayouts.MASK_24);
        destination.set(U32, offset + BthFlyweight.ACK_REQ_OFFSET, spec.psn() & WireLayouts.MASK_24);
        bth.fecn(spec.fecn()).becn(spec.becn()).ackReq(spec.ackReq());

        final int mask = opcode.mask();
        if ((mask & OpcodeMask.CNP_RESERVED) != 0)
        {
            final long reserved = offset + opcode.offset(OpcodeMask.CNP_RESERVED);
            destination.set(WireLayouts.U64, reserved, 0L);
            destination.set(WireLayouts.U64, reserved + Long.BYTES, 0L);
        }
        if ((mask & OpcodeMask.FETH) != 0)
        {
            destination.set(U32, offset + opcode.offset(OpcodeMask.FETH), spec.feth());
        }
        if ((mask & OpcodeMask.DETH) != 0)
        {
            deth.wrap(destination, offset + opcode.offset(OpcodeMask.DETH)).qkey(spec.qkey()).srcQp(spec.srcQp());
        }
        if ((mask & OpcodeMask.RETH) != 0)
        {
            reth.wrap(destination, offset + opcode.offset(OpcodeMask.RETH))
                .va(spec.va())
                .rkey(spec.rkey())
                .dmaLength(spec.dmaLength());
        }
        if ((mask & OpcodeMask.ATOMIC_ETH) != 0)
        {
            atomicEth.wrap(destination, offset + opcode.offset(OpcodeMask.ATOMIC_ETH))
                .va(spec.va())
                .rkey(spec.rkey())
                .swapAdd(spec.swapAdd())
                .compare(spec.compare());
        }
        if ((mask & OpcodeMask.AETH) != 0)
        {
            aeth.wrap(destination, offset + opcode.offset(OpcodeMask.AETH)).syndrome(spec.syndrome()).msn(spec.msn());
        }
        if ((mask & OpcodeMask.ATOMIC_ACK_ETH) != 0)
        {
            atomicAckEth.wrap(destination, offset + opcode.offset(OpcodeMask.ATOMIC_ACK_ETH)).orig(spec.orig());
        }
        if ((mask & OpcodeMask.IMMDT) != 0)
        {
            immDt.wrap(destination, offset + opcode.offset(OpcodeMask.IMMDT)).immediate(spec.immediate());
        }
        if ((mask & OpcodeMask.IETH) != 0)
        {
            ieth.wrap(destination, offset + opcode.offset(OpcodeMask.IETH)).rkey(spec.invalidateRkey());
        }
    }

    private int finish(
        final PacketInfo spec,
        final Opcode opcode,
        final int payloadLength,
        final MemorySegment destination,
        final long offset,
        final boolean withIcrc)
    {
        final long padOffset = offset + opcode.headerLength() + payloadLength;
        for (int i = 0, pad = pad(payloadLength); i < pad; i++)
        {
            destination.set(WireLayouts.U8, padOffset + i, (byte)0);
        }
        final int length = length(opcode, payloadLength);
        if (withIcrc)
        {
            icrc.generate(destination, offset, length, spec);
        }
        else
        {
            destination.set(WireLayouts.ICRC, offset + length - Icrc.LENGTH, 0);
        }
        return length;
    }
}
