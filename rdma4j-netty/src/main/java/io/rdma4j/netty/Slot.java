package io.rdma4j.netty;

import io.netty.util.internal.CleanableDirectBuffer;

import java.nio.ByteBuffer;

/**
 * One buffer's memory in a {@link SlabPool}: a slot of a chunk, seen as the capacity asked for; cleaning it
 * gives the slot back. Netty's direct buffer frees what it grew out of through {@link #clean()}.
 */
final class Slot implements CleanableDirectBuffer
{
    private final SlabPool pool;
    private final RegisteredChunk chunk;
    private final int offset;
    private final int sizeClass;
    private final ByteBuffer view;

    Slot(final SlabPool pool, final RegisteredChunk chunk, final int offset, final int sizeClass, final int capacity)
    {
        this.pool = pool;
        this.chunk = chunk;
        this.offset = offset;
        this.sizeClass = sizeClass;
        this.view = chunk.segment().asSlice(offset, capacity).asByteBuffer();
    }

    @Override
    public ByteBuffer buffer()
    {
        return view;
    }

    @Override
    public void clean()
    {
        pool.free(this);
    }

    /**
     * @return the chunk it is in.
     */
    RegisteredChunk chunk()
    {
        return chunk;
    }

    /**
     * @return where in the chunk it starts.
     */
    int offset()
    {
        return offset;
    }

    /**
     * @return its class in the pool.
     */
    int sizeClass()
    {
        return sizeClass;
    }

    /**
     * @return the address of its first byte.
     */
    long address()
    {
        return chunk.address() + offset;
    }
}
