package io.rdma4j.bench;

import io.rdma4j.rmcast.MessageHandler;
import io.rdma4j.rmcast.MulticastConfig;
import io.rdma4j.rmcast.Publication;
import io.rdma4j.rmcast.Subscription;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A first measure of reliable multicast's 1 → N message rate at 64 B: one publisher and N subscriptions in
 * one JVM, each subscription polled by a thread of its own, every device on its own loopback address; beside
 * it, the same run of raw UDP multicast (a DatagramChannel sending, N joined channels receiving), which loses
 * what its receivers cannot keep up with, so its figure is the slowest receiver's rate of what arrived.
 * <p>
 * Usage: {@code RmcastFanOutRate [SUBSCRIBERS [MESSAGES [SIZE [OFFERS_PER_FLUSH]]]]} (defaults 4, 1 000 000, 64, 1;
 * more offers per flush packs small messages several to a datagram, up to the MTU); set
 * {@code RDMA4J_SOFT_LOSS} for a lossy run. The figures depend on the cores: each receiver spins on one.
 */
public final class RmcastFanOutRate
{
    private static final String FIRST_HOST = "127.0.0.";
    private static final int FIRST_OCTET = 101;
    private static int offersPerFlush;

    public static void main(final String[] args) throws Exception
    {
        final int subscribers = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        final long messages = args.length > 1 ? Long.parseLong(args[1]) : 1_000_000;
        final int size = args.length > 2 ? Integer.parseInt(args[2]) : 64;
        offersPerFlush = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        System.out.printf("1 -> %d, %d messages of %d B, %d offers per flush, %d cores, loss %s%n", subscribers,
            messages, size, offersPerFlush, Runtime.getRuntime().availableProcessors(),
            System.getenv().getOrDefault("RDMA4J_SOFT_LOSS", "0"));
        final double oneThread = oneThread(subscribers, messages, size);
        final double rmcast = rmcast(subscribers, messages, size);
        final double udp = udp(subscribers, messages, size);
        System.out.printf("rmcast, one thread for all: %,.0f msg/s to each of %d (every message, in order)%n",
            oneThread, subscribers);
        System.out.printf("rmcast: %,.0f msg/s to each of %d (every message, in order)%n", rmcast, subscribers);
        System.out.printf("raw UDP multicast: %,.0f msg/s arrived at the slowest of %d%n", udp, subscribers);
        System.out.printf("ratio rmcast / raw UDP: %.2f%n", rmcast / udp);
    }

    private static InetAddress host(final int n) throws Exception
    {
        return InetAddress.getByName(FIRST_HOST + (FIRST_OCTET + n));
    }

    /**
     * The publisher and every subscription on the calling thread, in turn: the CPU the protocol costs per message
     * and member, without the scheduler's share of five spinning threads on few cores.
     */
    private static double oneThread(final int subscribers, final long messages, final int size) throws Exception
    {
        final InetSocketAddress group = new InetSocketAddress(InetAddress.getByName("239.255.101.3"), 0);
        final MulticastConfig config = new MulticastConfig().minGroupSize(subscribers).maxMessageLength(64 * 1024)
            .offersPerFlush(offersPerFlush);
        final List<Subscription> subs = new ArrayList<>();
        final long[] count = new long[subscribers];
        final MessageHandler[] handlers = new MessageHandler[subscribers];
        try (Publication publication = Publication.open(config, host(10), group); Arena arena = Arena.ofShared())
        {
            for (int i = 0; i < subscribers; i++)
            {
                final int n = i;
                handlers[i] = (buffer, offset, length, sessionId, position) -> count[n]++;
                subs.add(Subscription.open(new MulticastConfig().maxMessageLength(64 * 1024), host(11 + i), group,
                    null));
            }
            while (publication.memberCount() < subscribers || subs.stream().anyMatch(s -> s.imageCount() == 0))
            {
                publication.doWork();
                for (int i = 0; i < subscribers; i++)
                {
                    subs.get(i).poll(handlers[i], 64);
                }
            }
            final MemorySegment message = arena.allocate(size);
            final long start = System.nanoTime();
            long sent = 0;
            long slowest = 0;
            while (slowest < messages)
            {
                for (int k = 0; k < 16 && sent < messages; k++)
                {
                    if (publication.offer(message, 0, size) > 0)
                    {
                        sent++;
                    }
                }
                if (sent == messages)
                {
                    // the last datagram, packed or not, goes at the duty cycle: an idle publisher calls it
                    publication.doWork();
                }
                slowest = Long.MAX_VALUE;
                for (int i = 0; i < subscribers; i++)
                {
                    subs.get(i).poll(handlers[i], 64);
                    slowest = Math.min(slowest, count[i]);
                }
            }
            final double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("rmcast one thread: %s; first subscriber %s%n", publication.counters(),
                subs.getFirst().counters());
            return messages / seconds;
        }
        finally
        {
            for (final Subscription sub : subs)
            {
                sub.close();
            }
        }
    }

    private static double rmcast(final int subscribers, final long messages, final int size) throws Exception
    {
        final InetSocketAddress group = new InetSocketAddress(InetAddress.getByName("239.255.101.1"), 0);
        final MulticastConfig config = new MulticastConfig().minGroupSize(subscribers).maxMessageLength(64 * 1024)
            .offersPerFlush(offersPerFlush);
        try (Publication publication = Publication.open(config, host(0), group); Arena arena = Arena.ofShared())
        {
            final CountDownLatch joined = new CountDownLatch(subscribers);
            final CountDownLatch done = new CountDownLatch(subscribers);
            final AtomicBoolean finished = new AtomicBoolean();
            final List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < subscribers; i++)
            {
                final InetAddress local = host(1 + i);
                threads.add(Thread.ofPlatform().name("subscriber-" + i).start(() ->
                {
                    final long[] count = {0};
                    final MessageHandler handler = (buffer, offset, length, sessionId, position) -> count[0]++;
                    try (Subscription subscription = Subscription.open(new MulticastConfig()
                        .maxMessageLength(64 * 1024), local, group, null))
                    {
                        boolean counted = false;
                        while (count[0] < messages)
                        {
                            if (subscription.poll(handler, 64) == 0)
                            {
                                Thread.onSpinWait();
                            }
                            if (!counted && subscription.imageCount() == 1)
                            {
                                counted = true;
                                joined.countDown();
                            }
                        }
                        done.countDown();
                        // serve the status writes until the publisher is done with every member
                        while (!finished.get())
                        {
                            subscription.poll(handler, 64);
                        }
                    }
                    catch (final Exception ex)
                    {
                        ex.printStackTrace();
                    }
                }));
            }
            final MemorySegment message = arena.allocate(size);
            while (!joined.await(0, TimeUnit.MILLISECONDS))
            {
                publication.doWork();
            }
            final long start = System.nanoTime();
            long sent = 0;
            while (sent < messages)
            {
                if (publication.offer(message, 0, size) > 0)
                {
                    sent++;
                }
            }
            while (!done.await(0, TimeUnit.MILLISECONDS))
            {
                publication.doWork();
            }
            final double seconds = (System.nanoTime() - start) / 1e9;
            finished.set(true);
            System.out.printf("rmcast publication: %s%n", publication.counters());
            for (final Thread thread : threads)
            {
                thread.join();
            }
            return messages / seconds;
        }
    }

    private static double udp(final int receivers, final long messages, final int size) throws Exception
    {
        final InetAddress group = InetAddress.getByName("239.255.101.2");
        final NetworkInterface loopback = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
        final int port = 47_101;
        final AtomicLong[] received = new AtomicLong[receivers];
        final List<DatagramChannel> channels = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        final long[] window = new long[2];
        for (int i = 0; i < receivers; i++)
        {
            final DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET)
                .setOption(StandardSocketOptions.SO_REUSEADDR, true)
                .setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20)
                .bind(new InetSocketAddress(port));
            channel.join(group, loopback);
            channel.configureBlocking(false);
            channels.add(channel);
            final AtomicLong count = received[i] = new AtomicLong();
            threads.add(Thread.ofPlatform().daemon().start(() ->
            {
                final ByteBuffer buffer = ByteBuffer.allocateDirect(2048);
                try
                {
                    while (!Thread.currentThread().isInterrupted())
                    {
                        buffer.clear();
                        if (channel.receive(buffer) != null)
                        {
                            count.lazySet(count.get() + 1);
                        }
                        else
                        {
                            Thread.onSpinWait();
                        }
                    }
                }
                catch (final Exception ignored)
                {
                    // closed at the end
                }
            }));
        }
        try (DatagramChannel sender = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            sender.setOption(StandardSocketOptions.IP_MULTICAST_IF, loopback);
            sender.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true);
            sender.bind(new InetSocketAddress(host(-1), 0));
            final ByteBuffer out = ByteBuffer.allocateDirect(size);
            final InetSocketAddress target = new InetSocketAddress(group, port);
            final long start = System.nanoTime();
            for (long i = 0; i < messages; i++)
            {
                out.clear();
                sender.send(out, target);
            }
            TimeUnit.MILLISECONDS.sleep(200);   // what is still queued arrives
            window[0] = start;
            window[1] = System.nanoTime();
        }
        long slowest = Long.MAX_VALUE;
        for (final AtomicLong count : received)
        {
            slowest = Math.min(slowest, count.get());
        }
        for (final Thread thread : threads)
        {
            thread.interrupt();
        }
        for (final DatagramChannel channel : channels)
        {
            channel.close();
        }
        System.out.printf("raw UDP: slowest receiver got %d of %d%n", slowest, messages);
        return slowest / ((window[1] - window[0]) / 1e9);
    }
}
