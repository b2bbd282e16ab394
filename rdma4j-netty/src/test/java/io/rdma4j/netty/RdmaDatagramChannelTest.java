package io.rdma4j.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The UD datagram channel: joining and leaving groups through the connection manager, multicast to every member,
 * and the refusals of what it does not do.
 */
@Timeout(60)
class RdmaDatagramChannelTest extends NettyTestBase
{
    private int subnet;

    @BeforeEach
    void pickSubnet()
    {
        subnet = TestNet.nextSubnet();
    }

    /** A received datagram's text and addresses. */
    private record Received(String text, InetSocketAddress sender, InetSocketAddress recipient)
    {
    }

    /** A member: its channel and what it received. */
    private static final class Member extends SimpleChannelInboundHandler<DatagramPacket>
    {
        final BlockingQueue<Received> received = new LinkedBlockingQueue<>();
        RdmaDatagramChannel channel;

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final DatagramPacket packet)
        {
            received.add(new Received(packet.content().toString(StandardCharsets.UTF_8), packet.sender(),
                packet.recipient()));
        }

        Received next()
            throws InterruptedException
        {
            final Received next = received.poll(10, TimeUnit.SECONDS);
            assertNotNull(next, "a datagram within 10 s");
            return next;
        }
    }

    private Member member(final InetAddress address)
        throws InterruptedException
    {
        final Member member = new Member();
        member.channel = (RdmaDatagramChannel)new Bootstrap().group(net.group).channel(RdmaDatagramChannel.class)
            .handler(member).bind(new InetSocketAddress(address, 0)).sync().channel();
        return member;
    }

    private static DatagramPacket packet(final String text, final InetAddress group)
    {
        return new DatagramPacket(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8), new InetSocketAddress(group, 0));
    }

    @Test
    void everyMemberReceivesAndALeaverStops()
        throws Exception
    {
        final InetAddress groupOne = TestNet.groupAddress(subnet, 1);
        final InetAddress groupTwo = TestNet.groupAddress(subnet, 2);
        final Member first = member(TestNet.address(subnet, 1));
        final Member second = member(TestNet.address(subnet, 2));
        final Member sender = member(TestNet.address(subnet, 3));
        first.channel.joinGroup(groupOne).sync();
        second.channel.joinGroup(groupOne).sync();
        sender.channel.joinGroup(groupOne).sync();
        sender.channel.joinGroup(groupTwo).sync();

        sender.channel.writeAndFlush(packet("one", groupOne)).sync();
        for (final Member member : List.of(first, second, sender))
        {
            final Received received = member.next();
            assertEquals("one", received.text());
            assertEquals(TestNet.address(subnet, 3), received.sender().getAddress());
            assertEquals(groupOne, received.recipient().getAddress());
            assertEquals(member.channel.localAddress().getPort(), received.recipient().getPort());
        }

        // the second member leaves one group for the other: what the sender sends to the first group next never
        // reaches it, and what it sends to the second after that is the first thing it receives
        second.channel.leaveGroup(groupOne).sync();
        second.channel.joinGroup(groupTwo).sync();
        sender.channel.writeAndFlush(packet("two", groupOne)).sync();
        sender.channel.writeAndFlush(packet("three", groupTwo)).sync();
        assertEquals("two", first.next().text());
        assertEquals("three", second.next().text());
        assertTrue(second.received.isEmpty(), "nothing else: " + second.received);

        for (final Member member : List.of(first, second, sender))
        {
            member.channel.close().sync();
        }
    }

    @Test
    void sendingToAUnicastAddressOrBeyondTheMtuFails()
        throws Exception
    {
        final Member sender = member(TestNet.address(subnet, 1));
        // a plain address is no datagram's sender: it names no QP, and SIDR, which would find one, is not done
        final ChannelFuture unicast = sender.channel.writeAndFlush(new DatagramPacket(Unpooled.copiedBuffer("x",
            StandardCharsets.UTF_8), new InetSocketAddress(TestNet.address(subnet, 2), 7007)));
        assertTrue(unicast.await(5, TimeUnit.SECONDS));
        assertInstanceOf(IOException.class, unicast.cause());
        assertTrue(unicast.cause().getMessage().contains("SIDR"), unicast.cause().getMessage());

        final InetAddress group = TestNet.groupAddress(subnet, 3);
        sender.channel.joinGroup(group).sync();
        final ChannelFuture tooLong = sender.channel.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(
            new byte[64 * 1024]), new InetSocketAddress(group, 0)));
        assertTrue(tooLong.await(5, TimeUnit.SECONDS));
        assertInstanceOf(IOException.class, tooLong.cause());
        assertTrue(tooLong.cause().getMessage().contains("MTU"), tooLong.cause().getMessage());
        sender.channel.close().sync();
    }

    @Test
    void joiningAnUnboundChannelFails()
        throws Exception
    {
        final RdmaDatagramChannel channel = (RdmaDatagramChannel)new Bootstrap().group(net.group)
            .channel(RdmaDatagramChannel.class).handler(new Member()).register().sync().channel();
        final ChannelFuture join = channel.joinGroup(TestNet.groupAddress(subnet, 4));
        assertTrue(join.await(5, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, join.cause());
        channel.close().sync();
    }
}
