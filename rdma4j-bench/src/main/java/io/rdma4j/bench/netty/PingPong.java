package io.rdma4j.bench.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.HdrHistogram.Histogram;

import java.util.concurrent.CompletableFuture;

/**
 * The latency half of the client: one request of {@code size} bytes at a time, the next sent from the event loop
 * as soon as the last byte of the echo is read, so that no thread hand-off of the benchmark's own is timed. The
 * first {@code warmup} exchanges are not recorded.
 */
final class PingPong extends ChannelInboundHandlerAdapter
{
    private final int size;
    private final int warmup;
    private final int exchanges;
    private final Histogram histogram;
    private final CompletableFuture<Histogram> done = new CompletableFuture<>();
    private int sent;
    private int echoed;
    private long sentAt;

    /**
     * @param size      request bytes.
     * @param warmup    exchanges before recording.
     * @param exchanges exchanges recorded.
     * @param histogram where round trips go, in nanoseconds.
     */
    PingPong(final int size, final int warmup, final int exchanges, final Histogram histogram)
    {
        this.size = size;
        this.warmup = warmup;
        this.exchanges = exchanges;
        this.histogram = histogram;
    }

    /**
     * @return completes with the histogram after the last exchange, or with the connection's failure.
     */
    CompletableFuture<Histogram> done()
    {
        return done;
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx)
    {
        send(ctx);
    }

    private void send(final ChannelHandlerContext ctx)
    {
        final ByteBuf request = ctx.alloc().directBuffer(size);
        request.writerIndex(size);
        sent++;
        sentAt = System.nanoTime();
        ctx.writeAndFlush(request, ctx.voidPromise());
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        final ByteBuf buf = (ByteBuf)msg;
        echoed += buf.readableBytes();
        buf.release();
        if (echoed < size)
        {
            return;
        }
        final long now = System.nanoTime();
        echoed -= size;
        if (sent > warmup)
        {
            histogram.recordValue(now - sentAt);
        }
        if (sent < warmup + exchanges)
        {
            send(ctx);
        }
        else
        {
            done.complete(histogram);
        }
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        done.completeExceptionally(new IllegalStateException("the connection closed after " + sent + " requests"));
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        done.completeExceptionally(cause);
        ctx.close();
    }
}
