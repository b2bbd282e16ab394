package io.rdma4j.netty.example;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.rdma4j.netty.RdmaChannel;
import io.rdma4j.netty.RdmaIoHandler;
import io.rdma4j.netty.RdmaServerChannel;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Netty's echo example over RDMA: the bootstraps are Netty's own; only the event loop group's factory and the
 * channel classes name rdma4j.
 * <p>
 * Usage: {@code RdmaEcho server ADDRESS PORT} (PORT 0 picks one and prints it), or
 * {@code RdmaEcho client SERVER PORT LOCAL_ADDRESS MESSAGE}, which prints the echo and exits. With the software
 * device each process takes its own loopback address (README, "Addresses").
 */
public final class RdmaEcho
{
    private RdmaEcho()
    {
    }

    /**
     * @param args {@code server ADDRESS PORT} or {@code client SERVER PORT LOCAL_ADDRESS MESSAGE}.
     * @throws Exception if the echo fails.
     */
    public static void main(final String[] args) throws Exception
    {
        if (args.length >= 3 && "server".equals(args[0]))
        {
            final EventLoopGroup group = new MultiThreadIoEventLoopGroup(RdmaIoHandler.newFactory());
            try
            {
                final Channel server = serve(group, new InetSocketAddress(InetAddress.getByName(args[1]),
                    Integer.parseInt(args[2])));
                System.out.println("listening on " + server.localAddress());
                server.closeFuture().sync();
            }
            finally
            {
                group.shutdownGracefully().sync();
            }
        }
        else if (args.length >= 5 && "client".equals(args[0]))
        {
            final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
            try
            {
                System.out.println(echo(group, new InetSocketAddress(InetAddress.getByName(args[1]),
                    Integer.parseInt(args[2])), new InetSocketAddress(InetAddress.getByName(args[3]), 0), args[4]));
            }
            finally
            {
                group.shutdownGracefully().sync();
            }
        }
        else
        {
            System.err.println("usage: RdmaEcho server ADDRESS PORT | RdmaEcho client SERVER PORT LOCAL_ADDRESS MESSAGE");
            System.exit(2);
        }
    }

    /**
     * Listen and echo every byte back.
     *
     * @param group   the event loops, made with {@link RdmaIoHandler#newFactory()}.
     * @param address where to listen; port 0 picks one.
     * @return the listener.
     * @throws InterruptedException if interrupted while binding.
     */
    public static Channel serve(final EventLoopGroup group, final InetSocketAddress address) throws InterruptedException
    {
        return new ServerBootstrap().group(group).channel(RdmaServerChannel.class).childHandler(new EchoHandler())
            .bind(address).sync().channel();
    }

    /**
     * Send a message, wait for all of it to come back, disconnect.
     *
     * @param group   the event loops, made with {@link RdmaIoHandler#newFactory()}.
     * @param server  the echo server.
     * @param local   this side's address (port 0).
     * @param message the text.
     * @return the echoed text.
     * @throws Exception if the connection or the echo fails, or takes over ten seconds.
     */
    public static String echo(final EventLoopGroup group, final InetSocketAddress server,
        final InetSocketAddress local, final String message) throws Exception
    {
        final byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        final CompletableFuture<String> echoed = new CompletableFuture<>();
        final Channel channel = new Bootstrap().group(group).channel(RdmaChannel.class)
            .handler(new ChannelInboundHandlerAdapter()
            {
                private final ByteBuf received = Unpooled.buffer(bytes.length);

                @Override
                public void channelRead(final ChannelHandlerContext ctx, final Object msg)
                {
                    final ByteBuf buf = (ByteBuf)msg;
                    received.writeBytes(buf);
                    buf.release();
                    if (received.readableBytes() >= bytes.length)
                    {
                        echoed.complete(received.toString(StandardCharsets.UTF_8));
                        received.release();
                    }
                }

                @Override
                public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
                {
                    echoed.completeExceptionally(cause);
                    ctx.close();
                }
            })
            .connect(server, local).sync().channel();
        try
        {
            channel.writeAndFlush(Unpooled.wrappedBuffer(bytes));
            return echoed.get(10, TimeUnit.SECONDS);
        }
        finally
        {
            channel.close().sync();
        }
    }

    /**
     * Writes back what it reads, flushing at the end of each read, and closes the connection on a failure; it
     * keeps no state, so one instance serves every connection.
     */
    @ChannelHandler.Sharable
    public static final class EchoHandler extends ChannelInboundHandlerAdapter
    {
        /** A handler for any number of connections. */
        public EchoHandler()
        {
        }

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(final ChannelHandlerContext ctx)
        {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            ctx.close();
        }
    }
}
