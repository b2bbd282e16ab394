package io.rdma4j.examples;

import io.rdma4j.rmcast.MessageHandler;
import io.rdma4j.rmcast.MulticastConfig;
import io.rdma4j.rmcast.Publication;
import io.rdma4j.rmcast.Subscription;
import io.rdma4j.rmcast.SubscriptionListener;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Reliable multicast across processes: a publisher and three subscribers, each a JVM with its own loopback
 * address, on a network that loses 5 % of every device's datagrams ({@code RDMA4J_SOFT_LOSS=0.05}, unless
 * already set). The publisher waits for three members, sends COUNT messages to the group; each subscriber
 * repairs what the loss took by RDMA READ from the publisher's window and checks it got every message, in order.
 * <p>
 * Usage: {@code ReliableMulticast [COUNT [GROUP PUBLISHER SUB1 SUB2 SUB3]]} (defaults 20000, 239.255.71.1,
 * 127.0.0.71..74) runs all four; {@code ReliableMulticast publish LOCAL GROUP COUNT MEMBERS} and
 * {@code ReliableMulticast subscribe LOCAL GROUP COUNT} run one of them.
 */
public final class ReliableMulticast
{
    private static final int MESSAGE_LENGTH = 64;
    private static final long RUN_LIMIT_NS = TimeUnit.SECONDS.toNanos(120);

    public static void main(final String[] args) throws Exception
    {
        if (args.length > 0 && args[0].equals("publish"))
        {
            publish(InetAddress.getByName(args[1]), group(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
        }
        else if (args.length > 0 && args[0].equals("subscribe"))
        {
            System.exit(subscribe(InetAddress.getByName(args[1]), group(args[2]), Integer.parseInt(args[3])));
        }
        else
        {
            final String count = args.length > 0 ? args[0] : "20000";
            final String groupText = args.length > 1 ? args[1] : "239.255.71.1";
            final String[] hosts = args.length > 5 ? new String[] {args[2], args[3], args[4], args[5]} :
                new String[] {"127.0.0.71", "127.0.0.72", "127.0.0.73", "127.0.0.74"};
            System.exit(runAll(count, groupText, hosts));
        }
    }

    private static InetSocketAddress group(final String text) throws Exception
    {
        return new InetSocketAddress(InetAddress.getByName(text), 0);
    }

    /** Start the four processes, subscribers first, and wait for them all. */
    private static int runAll(final String count, final String group, final String[] hosts) throws Exception
    {
        final List<Process> processes = new ArrayList<>();
        for (int i = 1; i < hosts.length; i++)
        {
            processes.add(child(i, "subscribe", hosts[i], group, count));
        }
        processes.add(child(0, "publish", hosts[0], group, count, Integer.toString(hosts.length - 1)));
        int failed = 0;
        for (final Process process : processes)
        {
            if (!process.waitFor(RUN_LIMIT_NS, TimeUnit.NANOSECONDS))
            {
                process.destroyForcibly();
                failed++;
            }
            else if (process.exitValue() != 0)
            {
                failed++;
            }
        }
        say(failed == 0 ? "all three subscribers got every message in order" :
            failed + " of the four processes failed");
        return failed == 0 ? 0 : 1;
    }

    /**
     * One line to standard output in one write: the four processes share the parent's output (inheritIO), and
     * System.out's printf writes a line in pieces (strace: 7 writes for one formatted line on JDK 25), between which
     * another process's line can land. A pipe keeps a write of up to 4 KiB whole.
     */
    private static void say(final String line)
    {
        final byte[] bytes = (line + System.lineSeparator()).getBytes(StandardCharsets.UTF_8);
        synchronized (System.out)
        {
            System.out.flush();
            // a write at least as long as the buffer goes to the file in one call; a shorter one is flushed whole
            System.out.write(bytes, 0, bytes.length);
            System.out.flush();
        }
    }

    private static void sayf(final String format, final Object... args)
    {
        say(String.format(format, args));
    }

    private static Process child(final int n, final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--enable-native-access=ALL-UNNAMED"));
        // this JVM's rdma4j settings (the engine's choice, rdma4j.provider, among them) hold for its children too,
        // but the software device's address, which each child is given of its own below
        for (final String name : System.getProperties().stringPropertyNames())
        {
            if (name.startsWith("rdma4j.") && !name.equals("rdma4j.soft.address"))
            {
                command.add("-D" + name + "=" + System.getProperty(name));
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ReliableMulticast.class.getName()));
        command.addAll(List.of(args));
        final ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        final Map<String, String> env = builder.environment();
        env.putIfAbsent("RDMA4J_SOFT_LOSS", "0.05");
        env.putIfAbsent("RDMA4J_SOFT_LOSS_SEED", Integer.toString(4200 + n));
        env.put("RDMA4J_SOFT_ADDRESS", args[1]);
        return builder.start();
    }

    private static void publish(final InetAddress local, final InetSocketAddress group, final int count,
        final int members) throws Exception
    {
        final MulticastConfig config = new MulticastConfig().minGroupSize(members).maxMessageLength(64 * 1024);
        try (Publication publication = Publication.open(config, local, group); Arena arena = Arena.ofConfined())
        {
            sayf("[publisher] session %08x on %s, repair listener %s; waiting for %d members",
                publication.sessionId(), group.getAddress().getHostAddress(), publication.repairAddress(), members);
            final MemorySegment message = arena.allocate(MESSAGE_LENGTH);
            final long deadline = System.nanoTime() + RUN_LIMIT_NS;
            long start = 0;
            for (int i = 0; i < count; i++)
            {
                message.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                message.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, (long)i * 0x9E3779B97F4A7C15L);
                while (publication.offer(message, 0, MESSAGE_LENGTH) < 0)
                {
                    check(deadline, "offer " + i);
                    publication.doWork();
                }
                if (i == 0)
                {
                    start = System.nanoTime();
                    say("[publisher] " + members + " members joined; sending " + count + " messages");
                }
            }
            final double seconds = (System.nanoTime() - start) / 1e9;
            sayf("[publisher] sent %d messages in %.2f s (%.0f msg/s); %s", count, seconds,
                count / seconds, publication.counters());
            // stay until every member has what it needs (they leave when done): the window is their repair source
            while (publication.memberCount() > 0)
            {
                check(deadline, "members to finish");
                if (publication.doWork() == 0)
                {
                    Thread.onSpinWait();
                }
            }
            say("[publisher] every member left; done");
        }
    }

    private static int subscribe(final InetAddress local, final InetSocketAddress group, final int count)
        throws Exception
    {
        final int[] next = {0};
        final int[] bad = {0};
        final long[] lost = {0};
        final SubscriptionListener listener = new SubscriptionListener()
        {
            @Override
            public void onImageAvailable(final int sessionId, final long startSequence)
            {
                sayf("[%s] joined session %08x at %d", local.getHostAddress(), sessionId,
                    startSequence);
            }

            @Override
            public void onUnrecoverableLoss(final int sessionId, final long from, final long to)
            {
                lost[0] += to - from;
                sayf("[%s] LOST fragments [%d, %d)", local.getHostAddress(), from, to);
            }
        };
        final MessageHandler handler = (buffer, offset, length, sessionId, position) ->
        {
            final int index = buffer.get(ValueLayout.JAVA_INT_UNALIGNED, offset);
            final long check = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + 8);
            if (index != next[0] || check != (long)index * 0x9E3779B97F4A7C15L || length != MESSAGE_LENGTH)
            {
                bad[0]++;
            }
            next[0] = index + 1;
        };
        final MulticastConfig config = new MulticastConfig().maxMessageLength(64 * 1024);
        try (Subscription subscription = Subscription.open(config, local, group, listener))
        {
            sayf("[%s] joined %s", local.getHostAddress(), group.getAddress().getHostAddress());
            final long deadline = System.nanoTime() + RUN_LIMIT_NS;
            while (next[0] < count && lost[0] == 0)
            {
                check(deadline, "message " + next[0]);
                if (subscription.poll(handler, 64) == 0)
                {
                    Thread.onSpinWait();
                }
            }
            final Map<String, Long> counters = subscription.counters();
            final boolean ok = next[0] == count && bad[0] == 0 && lost[0] == 0;
            sayf("[%s] %s: delivered %d of %d in order, %d out of order, %d fragments lost; " +
                "%d gaps, %d repaired by %d READs, %d duplicates", local.getHostAddress(), ok ? "OK" : "FAILED",
                next[0], count, bad[0], lost[0], counters.get("gaps"), counters.get("fragments_repaired"),
                counters.get("repair_reads"), counters.get("duplicates"));
            return ok ? 0 : 1;
        }
    }

    private static void check(final long deadline, final String what)
    {
        if (System.nanoTime() > deadline)
        {
            throw new IllegalStateException("gave up waiting for " + what);
        }
    }
}
