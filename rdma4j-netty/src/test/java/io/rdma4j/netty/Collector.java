package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.io.ByteArrayOutputStream;
import java.util.concurrent.CompletableFuture;

/**
 * Keeps every byte a channel reads, releasing the buffers, and completes once it has {@code expected} of them,
 * or with the first exception.
 */
final class Collector extends ChannelInboundHandlerAdapter
{
    final CompletableFuture<byte[]> done = new CompletableFuture<>();
    final CompletableFuture<Void> inactive = new CompletableFuture<>();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final int expected;
    private volatile int received;

    Collector(final int expected)
    {
        this.expected = expected;
    }

    int received()
    {
        return received;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        final ByteBuf buf = (ByteBuf)msg;
        try
        {
            final byte[] chunk = new byte[buf.readableBytes()];
            buf.readBytes(chunk);
            bytes.writeBytes(chunk);
            received = bytes.size();
            if (bytes.size() >= expected)
            {
                done.complete(bytes.toByteArray());
            }
        }
        finally
        {
            buf.release();
        }
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        inactive.complete(null);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        done.completeExceptionally(cause);
    }
}
