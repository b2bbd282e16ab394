package io.rdma4j.soft.cm.mad;

import java.lang.foreign.MemorySegment;

/**
 * What every flyweight over part of a MAD shares: the wrapped memory and the typed field accessors, so that a
 * codec states only where its fields lie. Field offsets count from the flyweight's origin, which is where the IBTA
 * table of the structure starts counting ({@link CmBody}: after the MAD header), not from the start of the MAD.
 * The accessors return the flyweight's own type so that a message is built in one chain, and they allocate
 * nothing, as the CM thread runs them for every MAD.
 *
 * @param <F> the concrete flyweight.
 */
public abstract class MadFlyweight<F extends MadFlyweight<F>>
{
    private final int originInMad;
    private MemorySegment segment;
    private long offset;
    private long origin;

    /** @param originInMad where field offsets start counting, from the wrapped offset. */
    MadFlyweight(final int originInMad)
    {
        this.originInMad = originInMad;
    }

    /**
     * Point this flyweight at the memory.
     *
     * @param segment the memory holding the MAD.
     * @param offset  where the flyweight's structure starts in {@code segment}: the MAD itself for the MAD header
     *                and the message bodies, the private data for {@link CmaHeader}.
     * @return this.
     */
    public F wrap(final MemorySegment segment, final long offset)
    {
        this.segment = segment;
        this.offset = offset;
        this.origin = offset + originInMad;
        return self();
    }

    /** @return the wrapped memory. */
    public MemorySegment segment()
    {
        return segment;
    }

    /** @return the offset this flyweight was wrapped at in {@link #segment()}. */
    public long offset()
    {
        return offset;
    }

    /** @return where field offset 0 lies in {@link #segment()}. */
    final long origin()
    {
        return origin;
    }

    @SuppressWarnings("unchecked")
    final F self()
    {
        return (F)this;
    }

    final int u8(final int at)
    {
        return MadFields.u8(segment, origin + at);
    }

    final F u8(final int at, final int value)
    {
        MadFields.u8(segment, origin + at, value);
        return self();
    }

    final int u16(final int at)
    {
        return MadFields.u16(segment, origin + at);
    }

    final F u16(final int at, final int value)
    {
        MadFields.u16(segment, origin + at, value);
        return self();
    }

    final int u32(final int at)
    {
        return MadFields.u32(segment, origin + at);
    }

    final F u32(final int at, final int value)
    {
        MadFields.u32(segment, origin + at, value);
        return self();
    }

    final long u64(final int at)
    {
        return MadFields.u64(segment, origin + at);
    }

    final F u64(final int at, final long value)
    {
        MadFields.u64(segment, origin + at, value);
        return self();
    }

    /** See {@link MadFields#high24(MemorySegment, long)}: the CM's QPNs, EECNs and PSNs. */
    final int high24(final int at)
    {
        return MadFields.high24(segment, origin + at);
    }

    final F high24(final int at, final int value)
    {
        MadFields.high24(segment, origin + at, value);
        return self();
    }

    final int low24(final int at)
    {
        return MadFields.low24(segment, origin + at);
    }

    final F low24(final int at, final int value)
    {
        MadFields.low24(segment, origin + at, value);
        return self();
    }

    final int bits(final int at, final int shift, final int mask)
    {
        return MadFields.bits(segment, origin + at, shift, mask);
    }

    final F bits(final int at, final int shift, final int mask, final int value)
    {
        MadFields.bits(segment, origin + at, shift, mask, value);
        return self();
    }

    final boolean flag(final int at, final int shift)
    {
        return MadFields.flag(segment, origin + at, shift);
    }

    final F flag(final int at, final int shift, final boolean on)
    {
        MadFields.flag(segment, origin + at, shift, on);
        return self();
    }

    /** See {@link MadFields#copyOut}. */
    final int copyOut(final int at, final int capacity, final byte[] dst)
    {
        return MadFields.copyOut(segment, origin + at, capacity, dst);
    }

    /** See {@link MadFields#copyIn}: the rest of the area is zeroed. */
    final F copyIn(final int at, final int capacity, final byte[] src, final int length)
    {
        MadFields.copyIn(segment, origin + at, capacity, src, length);
        return self();
    }
}
