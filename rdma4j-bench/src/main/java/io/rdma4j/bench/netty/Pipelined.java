package io.rdma4j.bench.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The rate half of the client, one per connection: {@code window} requests of {@code size} bytes outstanding,
 * each echo answered at once by a new request, all the requests a read completes going out in one buffer. Echoes
 * are counted in bytes, since a byte stream may split or join them. {@link #stop} lets the window drain.
 */
final class Pipelined extends ChannelInboundHandlerAdapter
{
    private final int size;
    private final int window;
    private final AtomicLong completed;
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    private volatile boolean stopping;
    private long outstandingBytes;
    private long echoedBytes;

    /**
     * @param size      request bytes.
     * @param window    requests outstanding.
     * @param completed the echoes of every connection, counted as they complete.
     */
    Pipelined(final int size, final int window, final AtomicLong completed)
    {
        this.size = size;
        this.window = window;
        this.completed = completed;
    }

    /**
     * @return completes when, after {@link #stop}, every request has come back.
     */
    CompletableFuture<Void> drained()
    {
        return drained;
    }

    /** Send no more requests; {@link #drained} completes when the outstanding ones are back. */
    void stop()
    {
        stopping = true;
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx)
    {
        send(ctx, window);
    }

    private void send(final ChannelHandlerContext ctx, final int requests)
    {
        final int bytes = requests * size;
        final ByteBuf batch = ctx.alloc().directBuffer(bytes);
        batch.writerIndex(bytes);
        outstandingBytes += bytes;
        ctx.writeAndFlush(batch, ctx.voidPromise());
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        final ByteBuf buf = (ByteBuf)msg;
        echoedBytes += buf.readableBytes();
        outstandingBytes -= buf.readableBytes();
        buf.release();
        final int requests = (int)(echoedBytes / size);
        if (requests == 0)
        {
            return;
        }
        echoedBytes -= (long)requests * size;
        completed.addAndGet(requests);
        if (!stopping)
        {
            send(ctx, requests);
        }
        else if (outstandingBytes == 0)
        {
            drained.complete(null);
        }
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        drained.completeExceptionally(new IllegalStateException("the connection closed with " + outstandingBytes +
            " bytes outstanding"));
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        drained.completeExceptionally(cause);
        ctx.close();
    }
}
