package io.rdma4j.bench.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.rdma4j.netty.RdmaChannelOption;
import io.rdma4j.netty.RdmaDatagramChannel;
import io.rdma4j.netty.RdmaIoHandler;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A multicast burst as a new user runs it (issue 43): one Netty sender and some Netty receivers on one group, each
 * in its own JVM with one event loop, on all defaults; the sender writes datagrams at a rate from its loop as a
 * timer falls due (a late turn sends its share at once, as a fixed-rate timer does), and each receiver says how
 * many it got and, on rdma4j, how many its channel counted as dropped
 * ({@link RdmaDatagramChannel#droppedDatagrams()}). The same JVMs run burst after burst, so that the first (a
 * cold JVM, what a new user meets) and the later ones (warm) are told apart. The transport is rdma4j's datagram
 * channel (each JVM a soft device on its own loopback address) or, as the baseline, Netty's NIO UDP channel
 * joined on {@code lo} (a UDP socket's drops are the kernel's, {@code RcvbufErrors} in {@code /proc/net/snmp},
 * not counted here: dropped prints -1).
 * <p>
 * Usage: {@code MulticastBurst run [--transport rdma|nio] [--receivers N] [--rate PER_S] [--count N]
 * [--size BYTES] [--subnet S] [--sender-joins] [--runs N] [--bursts N] [--jvm OPTION]...}; the driver starts the
 * others with this JVM's java and class path.
 */
public final class MulticastBurst
{
    private static final int PORT = 7007;
    private static final long REPORT_WAIT_SECONDS = 20;
    /** A receiver that heard nothing new for this long after a burst's first datagram reports. */
    private static final long QUIET_SECONDS = 2;
    /** Receives of an rdma4j channel, from {@code -Dburst.receiveBuffers}; 0 for the default. */
    private static final int RECEIVE_BUFFERS = Integer.getInteger("burst.receiveBuffers", 0);
    /** Whether members note the longest gaps between their reads, from {@code -Dburst.gaps}. */
    private static final boolean GAPS = Boolean.getBoolean("burst.gaps");

    private MulticastBurst()
    {
    }

    /**
     * @param args see the class; the parts are {@code receive TRANSPORT ADDRESS GROUP COUNT BURSTS} and
     *             {@code send TRANSPORT ADDRESS GROUP RATE COUNT SIZE JOIN}.
     * @throws Exception if a part fails.
     */
    public static void main(final String[] args) throws Exception
    {
        if (args.length == 0)
        {
            usage();
        }
        switch (args[0])
        {
            case "receive" -> receive(args[1], InetAddress.getByName(args[2]), InetAddress.getByName(args[3]),
                Long.parseLong(args[4]), Integer.parseInt(args[5]));
            case "send" -> send(args[1], InetAddress.getByName(args[2]), InetAddress.getByName(args[3]),
                Integer.parseInt(args[4]), Integer.parseInt(args[5]), Integer.parseInt(args[6]),
                Boolean.parseBoolean(args[7]));
            case "run" -> run(args);
            default -> usage();
        }
    }

    private static void usage()
    {
        System.err.println("usage: MulticastBurst run [--transport rdma|nio] [--receivers N] [--rate PER_S] " +
            "[--count N] [--size BYTES] [--subnet S] [--sender-joins] [--runs N] [--bursts N] [--jvm OPTION]");
        System.exit(2);
    }

    /** Counts what arrives. */
    private static final class Counter extends SimpleChannelInboundHandler<DatagramPacket>
    {
        final AtomicLong count = new AtomicLong();
        final AtomicLong failures = new AtomicLong();

        /** The longest gaps between reads since {@link #gaps()} was last asked (with {@code -Dburst.gaps}). */
        private final long[] longest = new long[3];
        private long lastRead;

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final DatagramPacket packet)
        {
            count.incrementAndGet();
            if (GAPS)
            {
                final long now = System.nanoTime();
                final long gap = lastRead == 0 ? 0 : now - lastRead;
                lastRead = now;
                for (int i = 0; i < longest.length; i++)
                {
                    if (gap > longest[i])
                    {
                        System.arraycopy(longest, i, longest, i + 1, longest.length - i - 1);
                        longest[i] = gap;
                        break;
                    }
                }
            }
        }

        /** @return the longest gaps between reads, in ms, since the last call; from another thread, roughly. */
        String gaps()
        {
            final String text = String.format(Locale.ROOT, " gaps %.1f/%.1f/%.1f ms", longest[0] / 1e6,
                longest[1] / 1e6, longest[2] / 1e6);
            java.util.Arrays.fill(longest, 0);
            lastRead = 0;
            return GAPS ? text : "";
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            if (failures.getAndIncrement() == 0)
            {
                System.err.println(ctx.channel() + ": " + cause);
            }
        }
    }

    /** A bound member or sender of one transport. */
    private record Member(EventLoopGroup group, DatagramChannel channel, Counter counter)
    {
        long dropped()
        {
            return channel instanceof RdmaDatagramChannel rdma ? Math.max(0, rdma.droppedDatagrams()) : 0;
        }

        long droppedShown()
        {
            return channel instanceof RdmaDatagramChannel ? dropped() : -1;
        }

        void join(final InetAddress groupAddress) throws Exception
        {
            if (channel instanceof RdmaDatagramChannel)
            {
                channel.joinGroup(groupAddress).sync();
            }
            else
            {
                channel.joinGroup(new InetSocketAddress(groupAddress, PORT), NetworkInterface.getByName("lo")).sync();
            }
        }

        void close() throws InterruptedException
        {
            channel.close().sync();
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * @param transport   rdma or nio.
     * @param address     the rdma4j device's address; for UDP, unused (a member binds the group's port).
     * @param groupMember whether the UDP socket is to join: bound to the group's port, else to any port.
     */
    private static Member bind(final String transport, final InetAddress address, final boolean groupMember)
        throws Exception
    {
        final Counter counter = new Counter();
        final Bootstrap bootstrap = new Bootstrap().handler(counter);
        final EventLoopGroup group;
        final InetSocketAddress local;
        switch (transport)
        {
            case "rdma" ->
            {
                group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
                bootstrap.channel(RdmaDatagramChannel.class);
                if (RECEIVE_BUFFERS > 0)
                {
                    bootstrap.option(RdmaChannelOption.RECEIVE_BUFFERS, RECEIVE_BUFFERS);
                }
                local = new InetSocketAddress(address, 0);
            }
            case "nio" ->
            {
                group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
                bootstrap.channelFactory(() -> new NioDatagramChannel(SocketProtocolFamily.INET));
                local = new InetSocketAddress(groupMember ? PORT : 0);
            }
            default -> throw new IllegalArgumentException("no transport '" + transport + "': rdma or nio");
        }
        bootstrap.group(group);
        if (!transport.equals("rdma"))
        {
            bootstrap.option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.IP_MULTICAST_IF, NetworkInterface.getByName("lo"));
        }
        final DatagramChannel channel = (DatagramChannel)bootstrap.bind(local).sync().channel();
        return new Member(group, channel, counter);
    }

    /**
     * A receiver: joins, says so, and reports each burst once it has accounted for every datagram of it or, after
     * the driver said on its input that the sender has sent it all, heard nothing new for a while; counts are since
     * the last report.
     */
    private static void receive(final String transport, final InetAddress address, final InetAddress groupAddress,
        final long expected, final int bursts) throws Exception
    {
        final Member member = bind(transport, address, true);
        member.join(groupAddress);
        System.out.println("joined");
        System.out.flush();
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        long countBefore = 0;
        long droppedBefore = 0;
        for (int burst = 0; burst < bursts; burst++)
        {
            final long cpuBefore = cpuNanos();
            // the driver says when the sender has sent the burst: a sender that stalls longer than the quiet time
            // mid-burst (a loaded machine) must not end the count early and move the rest into the next burst
            if (in.readLine() == null)
            {
                break;
            }
            long seen = 0;
            long quietSince = System.nanoTime();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(REPORT_WAIT_SECONDS * 6);
            long count = 0;
            long dropped = 0;
            while (System.nanoTime() < deadline)
            {
                count = member.counter().count.get() - countBefore;
                dropped = member.dropped() - droppedBefore;
                final long now = count + dropped;
                if (now >= expected)
                {
                    break;
                }
                if (now != seen)
                {
                    seen = now;
                    quietSince = System.nanoTime();
                }
                else if (System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(QUIET_SECONDS))
                {
                    break;
                }
                Thread.sleep(10);
            }
            countBefore += count;
            droppedBefore += dropped;
            System.out.printf(Locale.ROOT, "received %d dropped %d cpu %d ms%s%n", count,
                member.droppedShown() < 0 ? -1 : dropped, (cpuNanos() - cpuBefore) / 1_000_000,
                member.counter().gaps());
            System.out.flush();
        }
        member.close();
    }

    /**
     * The sender: for each line on its standard input, writes COUNT datagrams at RATE from its loop, then reports
     * what it got of its own.
     */
    private static void send(final String transport, final InetAddress address, final InetAddress groupAddress,
        final int rate, final int count, final int size, final boolean join) throws Exception
    {
        final Member member = bind(transport, address, join);
        if (join)
        {
            member.join(groupAddress);
        }
        final DatagramChannel channel = member.channel();
        final Counter counter = member.counter();
        System.out.println("ready");
        System.out.flush();
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        final InetSocketAddress to = new InetSocketAddress(groupAddress, PORT);
        final byte[] payload = new byte[size];
        final AtomicLong failed = new AtomicLong();
        long countBefore = 0;
        long droppedBefore = 0;
        while (in.readLine() != null)
        {
            final long[] sent = new long[1];
            final CompletableFuture<Void> done = new CompletableFuture<>();
            final long cpuAtStart = cpuNanos();
            final long start = System.nanoTime();
            final ScheduledFuture<?>[] timer = new ScheduledFuture<?>[1];
            timer[0] = channel.eventLoop().scheduleAtFixedRate(() ->
            {
                final long due = Math.min(count, (System.nanoTime() - start) * rate / TimeUnit.SECONDS.toNanos(1) + 1);
                while (sent[0] < due)
                {
                    sent[0]++;
                    channel.write(new DatagramPacket(Unpooled.wrappedBuffer(payload), to)).addListener(written ->
                    {
                        if (!written.isSuccess() && failed.getAndIncrement() == 0)
                        {
                            System.err.println("a write failed: " + written.cause());
                        }
                    });
                }
                channel.flush();
                if (sent[0] == count)
                {
                    timer[0].cancel(false);
                    done.complete(null);
                }
            }, 0, TimeUnit.SECONDS.toNanos(1) / rate, TimeUnit.NANOSECONDS);
            done.get(120, TimeUnit.SECONDS);
            final double seconds = (System.nanoTime() - start) / 1e9;
            long own = counter.count.get() - countBefore;
            long dropped = member.dropped() - droppedBefore;
            if (join)
            {
                long seen = own + dropped;
                long quietSince = System.nanoTime();
                while (own + dropped < count &&
                    System.nanoTime() - quietSince < TimeUnit.SECONDS.toNanos(QUIET_SECONDS))
                {
                    Thread.sleep(10);
                    own = counter.count.get() - countBefore;
                    dropped = member.dropped() - droppedBefore;
                    if (own + dropped != seen)
                    {
                        seen = own + dropped;
                        quietSince = System.nanoTime();
                    }
                }
            }
            countBefore += own;
            droppedBefore += dropped;
            System.out.printf(Locale.ROOT, "sent %d in %.2f s failed %d own %d dropped %d cpu %d ms%s%n", count,
                seconds, failed.getAndSet(0), own, member.droppedShown() < 0 ? -1 : dropped,
                (cpuNanos() - cpuAtStart) / 1_000_000, counter.gaps());
            System.out.flush();
        }
        member.close();
    }

    /** A part's process and its output. */
    private record Part(Process process, BufferedReader out, PrintStream in)
    {
        /** The part's next line that starts with a word, passing over what else it prints (a JFR banner). */
        String line(final String word) throws IOException
        {
            String line;
            while ((line = out.readLine()) != null)
            {
                if (line.startsWith(word))
                {
                    return line;
                }
            }
            throw new IOException("a part ended without saying '" + word + "': exit " + waitExit());
        }

        private int waitExit()
        {
            try
            {
                return process.waitFor();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return -1;
            }
        }
    }

    private static Part start(final List<String> jvmOptions, final String... args) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(MulticastBurst.class.getName());
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        return new Part(process, new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)), new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8));
    }

    private static void run(final String[] args) throws Exception
    {
        String transport = "rdma";
        int receivers = 3;
        int rate = 5000;
        int count = 5000;
        int size = 64;
        int subnet = 43;
        int runs = 1;
        int bursts = 1;
        boolean senderJoins = false;
        final List<String> jvmOptions = new ArrayList<>();
        for (int i = 1; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--transport" -> transport = args[++i];
                case "--receivers" -> receivers = Integer.parseInt(args[++i]);
                case "--rate" -> rate = Integer.parseInt(args[++i]);
                case "--count" -> count = Integer.parseInt(args[++i]);
                case "--size" -> size = Integer.parseInt(args[++i]);
                case "--subnet" -> subnet = Integer.parseInt(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--bursts" -> bursts = Integer.parseInt(args[++i]);
                case "--sender-joins" -> senderJoins = true;
                case "--jvm" -> jvmOptions.add(args[++i]);
                default -> usage();
            }
        }
        final String groupAddress = "239.77." + subnet + ".7";
        System.out.printf(Locale.ROOT, "%s: %d receivers, %d x %d B at %d/s, sender %s; load %s%n", transport,
            receivers, count, size, rate, senderJoins ? "joined" : "not joined", load());
        for (int run = 1; run <= runs; run++)
        {
            final List<Part> parts = new ArrayList<>();
            try
            {
                for (int r = 0; r < receivers; r++)
                {
                    parts.add(start(jvmOptions, "receive", transport, "127.77." + subnet + "." + (r + 2),
                        groupAddress, Integer.toString(count), Integer.toString(bursts)));
                }
                for (final Part part : parts)
                {
                    part.line("joined");
                }
                final Part sender = start(jvmOptions, "send", transport, "127.77." + subnet + ".1", groupAddress,
                    Integer.toString(rate), Integer.toString(count), Integer.toString(size),
                    Boolean.toString(senderJoins));
                parts.add(sender);
                sender.line("ready");
                for (int burst = 1; burst <= bursts; burst++)
                {
                    sender.in().println("go");
                    final StringBuilder line = new StringBuilder("run " + run + " burst " + burst + ":");
                    line.append(" sender [").append(sender.line("sent")).append("]");
                    for (final Part part : parts.subList(0, receivers))
                    {
                        part.in().println("sent");
                    }
                    for (final Part part : parts.subList(0, receivers))
                    {
                        line.append(" [").append(part.line("received")).append("]");
                    }
                    System.out.println(line + " load " + load());
                }
            }
            finally
            {
                for (final Part part : parts)
                {
                    part.in().close();
                    if (!part.process().waitFor(30, TimeUnit.SECONDS))
                    {
                        part.process().destroy();
                    }
                }
            }
        }
    }

    /** This process's CPU time, all its threads. */
    private static long cpuNanos()
    {
        return ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    private static String load()
    {
        try
        {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        }
        catch (final IOException ex)
        {
            return "?";
        }
    }
}
