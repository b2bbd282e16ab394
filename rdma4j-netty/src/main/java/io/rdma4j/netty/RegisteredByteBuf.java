package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.util.internal.CleanableDirectBuffer;

/**
 * A direct buffer of an {@link RdmaByteBufAllocator}: Netty's own direct buffer over a slot of a registered chunk.
 * Growing it takes a slot of the larger class (or plain direct memory beyond the largest, which then goes out by
 * copy) and gives the old one back; releasing it gives its slot back.
 * <p>
 * Netty never frees the memory its constructor was given, so this class frees that first slot itself, once the
 * buffer grows out of it or is released; the slots it grows into Netty frees through {@link Slot#clean()}.
 */
final class RegisteredByteBuf extends UnpooledDirectByteBuf
{
    private final SlabPool pool;
    /** The slot the buffer was made with, while the buffer still holds it. */
    private Slot initial;
    /** The slot the bytes are in now; null when they are in plain direct memory. */
    private Slot current;

    RegisteredByteBuf(final RdmaByteBufAllocator alloc, final SlabPool pool, final Slot slot, final int maxCapacity)
    {
        super(alloc, slot.buffer(), maxCapacity);
        this.pool = pool;
        this.initial = slot;
        this.current = slot;
        // Netty's wrapping constructor counts the given memory as written
        setIndex(0, 0);
    }

    /**
     * @return the slot the bytes are in, or null if they are in plain direct memory.
     */
    Slot slot()
    {
        return current;
    }

    @Override
    protected CleanableDirectBuffer allocateDirectBuffer(final int capacity)
    {
        final Slot slot = pool.allocate(capacity);
        // the buffer moves into this memory as soon as it is returned (Netty's capacity change)
        current = slot;
        return slot != null ? slot : super.allocateDirectBuffer(capacity);
    }

    @Override
    public ByteBuf capacity(final int newCapacity)
    {
        final int before = capacity();
        super.capacity(newCapacity);
        if (capacity() != before && initial != null)
        {
            final Slot first = initial;
            initial = null;
            first.clean();
        }
        return this;
    }

    @Override
    protected void deallocate()
    {
        super.deallocate();
        current = null;
        if (initial != null)
        {
            final Slot first = initial;
            initial = null;
            first.clean();
        }
    }
}
