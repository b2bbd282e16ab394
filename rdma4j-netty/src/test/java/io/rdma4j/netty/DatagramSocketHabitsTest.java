package io.rdma4j.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Multicast as Netty's UDP code expects it (issue 43, items 1 and 2): a burst on defaults arrives, with every drop
 * counted; a sender need not join; a reply to {@code sender()} arrives; loopback can be switched off per channel.
 */
@Timeout(120)
class DatagramSocketHabitsTest extends NettyTestBase
{
    private static final int BURST = 1000;
    private static final int RATE = 550;
    private static final int FAST_BURST = 5000;
    private static final int FAST_RATE = 5000;
    /** A sender's receives in the pacing tests, and the datagrams of its one flush: many times more. */
    private static final int SMALL_RING = 16;
    private static final int SMALL_RING_BURST = 300;

    private int subnet;

    @BeforeEach
    void pickSubnet()
    {
        subnet = TestNet.nextSubnet();
    }

    /** A channel and what it received. */
    private static final class Member extends SimpleChannelInboundHandler<DatagramPacket>
    {
        final BlockingQueue<DatagramPacket> received = new LinkedBlockingQueue<>();
        final AtomicInteger count = new AtomicInteger();
        final boolean keep;
        RdmaDatagramChannel channel;

        Member(final boolean keep)
        {
            this.keep = keep;
        }

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final DatagramPacket packet)
        {
            count.incrementAndGet();
            if (keep)
            {
                received.add(packet.retain());
            }
        }

        String nextText() throws InterruptedException
        {
            final DatagramPacket next = next();
            try
            {
                return next.content().toString(StandardCharsets.UTF_8);
            }
            finally
            {
                next.release();
            }
        }

        DatagramPacket next() throws InterruptedException
        {
            final DatagramPacket next = received.poll(10, TimeUnit.SECONDS);
            assertNotNull(next, "a datagram within 10 s");
            return next;
        }

        void close() throws InterruptedException
        {
            channel.close().sync();
            DatagramPacket left;
            while ((left = received.poll()) != null)
            {
                left.release();
            }
        }
    }

    private Member member(final int host, final boolean keep) throws InterruptedException
    {
        return member(net.group, host, keep);
    }

    private Member member(final EventLoopGroup loops, final int host, final boolean keep) throws InterruptedException
    {
        return member(loops, host, keep, RdmaDatagramChannelConfig.DEFAULT_RECEIVE_BUFFERS, true);
    }

    private Member member(final EventLoopGroup loops, final int host, final boolean keep, final int receiveBuffers,
        final boolean autoRead) throws InterruptedException
    {
        final Member member = new Member(keep);
        member.channel = (RdmaDatagramChannel)new Bootstrap().group(loops).channel(RdmaDatagramChannel.class)
            .option(RdmaChannelOption.RECEIVE_BUFFERS, receiveBuffers).option(ChannelOption.AUTO_READ, autoRead)
            .handler(member).bind(new InetSocketAddress(TestNet.address(subnet, host), 0)).sync().channel();
        return member;
    }

    /** Write datagrams from the test's thread, flushed once at the end: the loop writes them in one flush. */
    private static ChannelFuture writeBurst(final Member sender, final InetSocketAddress to, final int count)
    {
        for (int i = 1; i < count; i++)
        {
            sender.channel.write(packet("burst " + i, to));
        }
        return sender.channel.writeAndFlush(packet("burst " + count, to));
    }

    private static DatagramPacket packet(final String text, final InetSocketAddress to)
    {
        return new DatagramPacket(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8), to);
    }

    private static void await(final String what, final BooleanSupplier condition)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadline, "within 30 s: " + what);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    /**
     * Send a burst from the last member at a rate, from its loop as a timer falls due (a late turn sends its
     * share at once, as a fixed-rate timer does), and wait until every member has accounted for each datagram:
     * received or counted as dropped.
     */
    private static void burst(final List<Member> members, final InetAddress group, final int count, final int rate,
        final int size) throws Exception
    {
        final Member sender = members.get(members.size() - 1);
        final InetSocketAddress to = new InetSocketAddress(group, 7007);
        final AtomicInteger sent = new AtomicInteger();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final long start = System.nanoTime();
        final ScheduledFuture<?>[] timer = new ScheduledFuture<?>[1];
        timer[0] = sender.channel.eventLoop().scheduleAtFixedRate(() ->
        {
            final long due = Math.min(count, (System.nanoTime() - start) * rate / TimeUnit.SECONDS.toNanos(1) + 1);
            while (sent.get() < due)
            {
                sent.incrementAndGet();
                sender.channel.write(new DatagramPacket(Unpooled.wrappedBuffer(new byte[size]), to));
            }
            sender.channel.flush();
            if (sent.get() == count)
            {
                timer[0].cancel(false);
                done.complete(null);
            }
        }, 0, TimeUnit.SECONDS.toMicros(1) / rate, TimeUnit.MICROSECONDS);
        done.get(60, TimeUnit.SECONDS);
        for (final Member member : members)
        {
            await(member.channel + " accounts for every datagram", () ->
                member.count.get() + member.channel.droppedDatagrams() == count);
        }
    }

    @Test
    void aBurstAtAnOrdinaryRateReachesEveryMemberOnDefaultsAndEveryDropIsCounted() throws Exception
    {
        final InetAddress group = TestNet.groupAddress(subnet, 1);
        final List<Member> members = new ArrayList<>();
        for (int host = 1; host <= 4; host++)
        {
            final Member member = member(host, false);
            member.channel.joinGroup(group).sync();
            members.add(member);
        }
        final Member sender = members.get(3);
        assertEquals(RdmaDatagramChannelConfig.DEFAULT_RECEIVE_BUFFERS,
            sender.channel.config().getOption(RdmaChannelOption.RECEIVE_BUFFERS));

        // 1 KiB datagrams at a rate; each member's datagrams arrive or are counted as dropped, exactly
        burst(members, group, BURST, RATE, 1024);
        // and on defaults none of the three receivers dropped any at this rate
        for (final Member member : members.subList(0, 3))
        {
            assertEquals(BURST, member.count.get(), member.channel + " dropped " + member.channel.droppedDatagrams());
        }
        for (final Member member : members)
        {
            final long dropped = member.channel.droppedDatagrams();
            member.close();
            assertEquals(dropped, member.channel.droppedDatagrams(), "the count is kept after close");
        }
    }

    /**
     * Issue 43's group as a new user makes it, at 5 000/s: three receivers and a sender that is a member too, each
     * on a loop of its own (as in a process of its own), all on defaults; 64-byte datagrams. Every member, the
     * sender included (its own datagrams come back to it, as on a UDP socket), gets every one.
     */
    @Test
    void aBurstOf5000PerSecondReachesEveryMemberOnDefaults() throws Exception
    {
        final InetAddress group = TestNet.groupAddress(subnet, 5);
        final List<EventLoopGroup> loops = new ArrayList<>();
        final List<Member> members = new ArrayList<>();
        try
        {
            for (int host = 1; host <= 4; host++)
            {
                final EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
                loops.add(loop);
                final Member member = member(loop, host, false);
                member.channel.joinGroup(group).sync();
                members.add(member);
            }
            burst(members, group, FAST_BURST, FAST_RATE, 64);
            final StringBuilder counts = new StringBuilder("received/dropped, the sender last:");
            for (final Member member : members)
            {
                counts.append(' ').append(member.count.get()).append('/').append(member.channel.droppedDatagrams());
            }
            for (final Member member : members)
            {
                assertEquals(FAST_BURST, member.count.get(), counts.toString());
            }
            for (final Member member : members)
            {
                member.close();
            }
        }
        finally
        {
            for (final EventLoopGroup loop : loops)
            {
                loop.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
            }
        }
    }

    /**
     * A flush of many datagrams to a group the sender is a member of: the device gives the sender a copy of each,
     * and the flush goes on only as fast as the sender takes its copies in, so that none finds its few receives
     * full.
     */
    @Test
    void aSendersFlushGoesAsFastAsItTakesItsOwnCopiesIn() throws Exception
    {
        final InetAddress group = TestNet.groupAddress(subnet, 6);
        final Member other = member(1, false);
        final Member sender = member(net.group, 2, false, SMALL_RING, true);
        other.channel.joinGroup(group).sync();
        sender.channel.joinGroup(group).sync();

        writeBurst(sender, new InetSocketAddress(group, 7007), SMALL_RING_BURST).sync();
        for (final Member member : List.of(other, sender))
        {
            await(member.channel + " accounts for every datagram", () ->
                member.count.get() + member.channel.droppedDatagrams() == SMALL_RING_BURST);
            assertEquals(SMALL_RING_BURST, member.count.get(), member.channel + " dropped " +
                member.channel.droppedDatagrams());
        }
        other.close();
        sender.close();
    }

    /** A sender that does not read is not held back by its copies: they are dropped and counted, as before. */
    @Test
    void aSenderThatDoesNotReadStillSendsAndItsCopiesPastItsReceivesAreDropped() throws Exception
    {
        final InetAddress group = TestNet.groupAddress(subnet, 7);
        final Member other = member(1, false);
        final Member sender = member(net.group, 2, false, SMALL_RING, false);
        other.channel.joinGroup(group).sync();
        sender.channel.joinGroup(group).sync();

        assertTrue(writeBurst(sender, new InetSocketAddress(group, 7007), SMALL_RING_BURST)
            .await(10, TimeUnit.SECONDS), "the writes complete although the sender reads nothing");
        await(other.channel + " gets every datagram", () -> other.count.get() == SMALL_RING_BURST);
        // its receives hold the first copies; the device found none free for the rest
        await("the sender's drops counted", () ->
            sender.channel.droppedDatagrams() == SMALL_RING_BURST - SMALL_RING);
        assertEquals(0, sender.count.get());
        sender.channel.config().setAutoRead(true);
        await("the sender reads the copies its receives held", () -> sender.count.get() == SMALL_RING);
        other.close();
        sender.close();
    }

    /**
     * With loopback disabled, a sender's copies still take its receives until passed over: a long flush is paced by
     * them as well, so that they never fill the receives (which would drop other members' datagrams).
     */
    @Test
    void withLoopbackDisabledALongFlushFillsNoneOfTheSendersReceives() throws Exception
    {
        final InetAddress group = TestNet.groupAddress(subnet, 8);
        final Member other = member(1, false);
        final Member sender = member(net.group, 2, true, SMALL_RING, true);
        other.channel.joinGroup(group).sync();
        sender.channel.joinGroup(group).sync();
        sender.channel.config().setLoopbackModeDisabled(true);

        final InetSocketAddress to = new InetSocketAddress(group, 7007);
        writeBurst(sender, to, SMALL_RING_BURST).sync();
        await(other.channel + " gets every datagram", () -> other.count.get() == SMALL_RING_BURST);
        other.channel.writeAndFlush(packet("from other", to)).sync();
        assertEquals("from other", sender.nextText());
        assertEquals(0, sender.channel.droppedDatagrams(), "no copy found the sender's receives full");
        other.close();
        sender.close();
    }

    @Test
    void aSenderThatNeverJoinedSendsToAGroupAndHearsNothingOfIt() throws Exception
    {
        final InetAddress group = TestNet.groupAddress(subnet, 2);
        final Member first = member(1, true);
        final Member second = member(2, true);
        final Member sender = member(3, true);
        first.channel.joinGroup(group).sync();
        second.channel.joinGroup(group).sync();

        final InetSocketAddress to = new InetSocketAddress(group, 7007);
        // written before the send-only join can be done: they wait for it, in order
        sender.channel.write(packet("one", to));
        sender.channel.write(packet("two", to));
        sender.channel.writeAndFlush(packet("three", to)).sync();
        final DatagramPacket one = first.next();
        final InetSocketAddress senderAddress = one.sender();
        assertEquals("one", one.content().toString(StandardCharsets.UTF_8));
        one.release();
        assertEquals("two", first.nextText());
        assertEquals("three", first.nextText());
        assertEquals("one", second.nextText());
        assertEquals("two", second.nextText());
        assertEquals("three", second.nextText());
        // a send-only join attaches no QP: the sender hears neither its own datagrams (looped back to the device's
        // members as they were sent) nor a member's; the first thing it hears is a reply sent to it after both
        first.channel.writeAndFlush(packet("four", to)).sync();
        assertEquals("four", second.nextText());
        assertEquals("four", first.nextText());
        first.channel.writeAndFlush(packet("direct", senderAddress)).sync();
        assertEquals("direct", sender.nextText());
        for (final Member member : List.of(first, second, sender))
        {
            member.close();
        }
    }

    @Test
    void sendOnlyJoinsAreBoundedAndALeaveMakesRoom() throws Exception
    {
        final Member sender = member(1, false);
        for (int i = 0; i < RdmaDatagramChannel.MAX_SEND_ONLY_GROUPS; i++)
        {
            sender.channel.writeAndFlush(packet("x", new InetSocketAddress(TestNet.groupAddress(subnet, 10 + i),
                7007))).sync();
        }
        final InetSocketAddress oneMore = new InetSocketAddress(TestNet.groupAddress(subnet, 9), 7007);
        final ChannelFuture refused = sender.channel.writeAndFlush(packet("y", oneMore));
        assertTrue(refused.await(10, TimeUnit.SECONDS));
        assertInstanceOf(IOException.class, refused.cause());
        assertTrue(refused.cause().getMessage().contains("send-only"), refused.cause().getMessage());

        sender.channel.leaveGroup(TestNet.groupAddress(subnet, 10)).sync();
        sender.channel.writeAndFlush(packet("y", oneMore)).sync();
        sender.close();
    }

    @Test
    void aReplyToTheSenderArrivesBack() throws Exception
    {
        final InetAddress group = TestNet.groupAddress(subnet, 3);
        final Member client = member(1, true);
        final RdmaDatagramChannel server = (RdmaDatagramChannel)new Bootstrap().group(net.group)
            .channel(RdmaDatagramChannel.class).handler(new SimpleChannelInboundHandler<DatagramPacket>()
            {
                @Override
                protected void channelRead0(final ChannelHandlerContext ctx, final DatagramPacket packet)
                {
                    // an echo as on a UDP socket: back to whoever sent it
                    final ByteBuf reply = Unpooled.copiedBuffer("re: " + packet.content().toString(
                        StandardCharsets.UTF_8), StandardCharsets.UTF_8);
                    ctx.writeAndFlush(new DatagramPacket(reply, packet.sender()));
                }
            }).bind(new InetSocketAddress(TestNet.address(subnet, 2), 0)).sync().channel();
        server.joinGroup(group).sync();

        client.channel.writeAndFlush(packet("ping", new InetSocketAddress(group, 7007))).sync();
        final DatagramPacket reply = client.next();
        try
        {
            assertEquals("re: ping", reply.content().toString(StandardCharsets.UTF_8));
            final UdAddress from = assertInstanceOf(UdAddress.class, reply.sender());
            assertEquals(TestNet.address(subnet, 2), from.getAddress());
            assertEquals(server.qpNum(), from.qpNum());
            assertEquals(server.qpNum() & 0xFFFF, from.getPort());
            // unicast, to the client's own address
            assertEquals(TestNet.address(subnet, 1), reply.recipient().getAddress());
        }
        finally
        {
            reply.release();
        }
        // the client never joined: only the reply came, not its own datagram
        assertNull(client.received.poll(), "nothing else: " + client.received);
        client.close();
        server.close().sync();
    }

    @Test
    void withLoopbackDisabledASenderGetsNoneOfItsOwnWhileMembersGetAll() throws Exception
    {
        final InetAddress group = TestNet.groupAddress(subnet, 4);
        final InetSocketAddress to = new InetSocketAddress(group, 7007);
        final Member first = member(1, true);
        final Member second = member(2, true);
        final Member sender = member(3, true);
        for (final Member member : List.of(first, second, sender))
        {
            member.channel.joinGroup(group).sync();
        }
        sender.channel.config().setLoopbackModeDisabled(true);
        assertTrue(sender.channel.config().isLoopbackModeDisabled());
        final int count = 50;
        for (int i = 0; i < count; i++)
        {
            sender.channel.write(packet("own " + i, to));
        }
        sender.channel.flush();
        for (final Member member : List.of(first, second))
        {
            for (int i = 0; i < count; i++)
            {
                assertEquals("own " + i, member.nextText());
            }
        }
        // a member's datagram after them is the first thing the sender hears: none of its own came before it
        first.channel.writeAndFlush(packet("from first", to)).sync();
        assertEquals("from first", sender.nextText());
        // per channel: the other members still hear their own
        assertEquals("from first", first.nextText());

        // and it may be switched back on, as IP_MULTICAST_LOOP may
        sender.channel.config().setLoopbackModeDisabled(false);
        sender.channel.writeAndFlush(packet("own again", to)).sync();
        assertEquals("own again", sender.nextText());
        assertEquals(0, sender.channel.droppedDatagrams());
        for (final Member member : List.of(first, second, sender))
        {
            member.close();
        }
    }
}
