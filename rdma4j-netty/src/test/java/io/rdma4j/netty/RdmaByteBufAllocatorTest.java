package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.rdma4j.testing.NettyLeaks;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The registered allocator alone, and how a SEND finds a buffer's bytes in it: slots of registered chunks, growth
 * into a larger class, release back to the pool, plain memory past the limits.
 */
class RdmaByteBufAllocatorTest
{
    static
    {
        NettyLeaks.install();
    }

    private final RdmaByteBufAllocator alloc = new RdmaByteBufAllocator(8L << 20);

    @AfterAll
    static void noLeaks()
    {
        assertEquals(List.of(), NettyLeaks.leaks(), "ByteBufs leaked");
    }

    private static long address(final ByteBuf buf)
    {
        return MemorySegment.ofBuffer(buf.internalNioBuffer(0, buf.capacity())).address();
    }

    @Test
    void buffersAreDirectSlotsOfRegisteredChunksOfTheCapacityAsked()
    {
        final ByteBuf buf = alloc.buffer(100);
        assertTrue(buf.isDirect(), "buffer() is direct: a handler's buffers go out without a copy");
        assertEquals(100, buf.capacity());
        assertEquals(0, buf.writerIndex());
        assertSame(alloc, buf.alloc());
        final RegisteredChunk chunk = RegisteredChunk.at(address(buf));
        assertNotNull(chunk, "the bytes lie in a registered chunk");
        assertEquals(1, alloc.buffersInUse());
        assertEquals(128, alloc.usedBytes(), "a slot of the 128-byte class");
        buf.release();
        assertEquals(0, alloc.buffersInUse());
        assertEquals(0, alloc.usedBytes());
    }

    @Test
    void aReleasedSlotIsTheNextBufferOfItsClass()
    {
        final ByteBuf first = alloc.directBuffer(3000);
        final long at = address(first);
        first.release();
        final ByteBuf second = alloc.directBuffer(4096);
        assertEquals(at, address(second), "the same 4 KiB slot again");
        second.release();
        assertEquals(SlabPool.CHUNK_SIZE, alloc.reservedBytes(), "one chunk for the class");
    }

    @Test
    void growingMovesTheBytesToALargerSlotAndFreesTheOld()
    {
        final ByteBuf buf = alloc.directBuffer(64);
        final byte[] data = new byte[10_000];
        new java.util.Random(1).nextBytes(data);
        buf.writeBytes(data, 0, 64);
        buf.writeBytes(data, 64, data.length - 64);
        assertEquals(1, alloc.buffersInUse(), "the 64-byte slot went back when the buffer grew");
        assertEquals(16384, alloc.usedBytes());
        assertNotNull(RegisteredChunk.at(address(buf)));
        final byte[] back = new byte[data.length];
        buf.getBytes(0, back);
        assertTrue(java.util.Arrays.equals(data, back), "the bytes moved whole");
        // and once more, from a slot Netty itself frees
        buf.capacity(40_000);
        assertEquals(1, alloc.buffersInUse());
        buf.release();
        assertEquals(0, alloc.buffersInUse());
    }

    @Test
    void pastTheLargestClassOrTheLimitBuffersArePlainMemory()
    {
        final ByteBuf huge = alloc.directBuffer(SlabPool.MAX_CLASS + 1);
        assertTrue(huge.isDirect());
        assertNull(RegisteredChunk.at(address(huge)), "above 4 MiB: not registered");
        huge.release();
        // the limit is 8 MiB: two 4 MiB buffers take it all
        final ByteBuf a = alloc.directBuffer(SlabPool.MAX_CLASS);
        final ByteBuf b = alloc.directBuffer(SlabPool.MAX_CLASS);
        final ByteBuf c = alloc.directBuffer(64);
        assertNotNull(RegisteredChunk.at(address(a)));
        assertNotNull(RegisteredChunk.at(address(b)));
        assertNull(RegisteredChunk.at(address(c)), "no chunk for the 64-byte class fits the limit any more");
        assertEquals(2, alloc.buffersInUse());
        a.release();
        b.release();
        c.release();
    }

    @Test
    void theSourceOfASendIsTheBufferItselfOrAViewOfIt()
    {
        final SendSource source = new SendSource();
        final ByteBuf wrapped = alloc.directBuffer(8192).writeZero(8192);
        // the raw buffer under the leak detector's wrapper: the path with no NIO view
        final ByteBuf raw = wrapped.unwrap();
        assertTrue(raw instanceof RegisteredByteBuf, raw.getClass().getName());
        assertEquals(100, source.find(raw, 10, 100));
        final RegisteredChunk chunk = source.chunk();
        assertNotNull(chunk);
        final long rawOffset = source.offset();
        assertEquals(address(raw) + 10, chunk.address() + rawOffset);
        // the wrapper and a slice find the same bytes
        assertEquals(100, source.find(wrapped, 10, 100));
        assertEquals(rawOffset, source.offset());
        final ByteBuf slice = wrapped.slice(10, 200);
        assertEquals(50, source.find(slice, 0, 50));
        assertSame(chunk, source.chunk());
        assertEquals(rawOffset, source.offset());
        // heap bytes are copied
        assertEquals(5, source.find(Unpooled.wrappedBuffer(new byte[5]), 0, 5));
        assertNull(source.chunk());
        wrapped.release();
    }

    @Test
    void aCompositeSendsLargeRegisteredComponentsInPlaceAndCopiesTheRest()
    {
        final SendSource source = new SendSource();
        final CompositeByteBuf composite = Unpooled.compositeBuffer();
        composite.addComponent(true, alloc.directBuffer(100).writeZero(100));
        composite.addComponent(true, Unpooled.wrappedBuffer(new byte[200]));
        composite.addComponent(true, alloc.directBuffer(4096).writeZero(4096));
        composite.addComponent(true, alloc.directBuffer(2048).writeZero(2048));
        // the small registered one and the heap one are copied together, up to the large registered one
        assertEquals(300, source.find(composite, 0, composite.readableBytes()));
        assertNull(source.chunk());
        assertEquals(4096, source.find(composite, 300, composite.readableBytes() - 300));
        assertNotNull(source.chunk());
        // a SEND never spans two components in place
        assertEquals(2000, source.find(composite, 2396, 2000));
        assertNotNull(source.chunk());
        assertEquals(2048, source.find(composite, 4396, 2048));
        assertNotNull(source.chunk());
        // a tail of a large component under the small limit is copied
        assertEquals(48, source.find(composite, 6396, 48));
        assertNull(source.chunk());
        assertTrue(composite.release());
        assertEquals(0, alloc.buffersInUse(), "the components went back");
    }
}
