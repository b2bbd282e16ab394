package io.rdma4j.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.util.concurrent.CompletableFuture;

/** A server child's handler that completes with the accepted channel once it is active. */
final class Accepted extends ChannelInboundHandlerAdapter
{
    final CompletableFuture<Channel> active = new CompletableFuture<>();

    @Override
    public void channelActive(final ChannelHandlerContext ctx)
    {
        active.complete(ctx.channel());
        ctx.fireChannelActive();
    }
}
