package io.rdma4j.bench.compare.mcast;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One process of the multicast comparison: the publisher or one subscriber of a system (rdma4j's reliable
 * multicast, Aeron's multicast, plain UD multicast on the soft device, raw UDP multicast), running the same
 * {@link McastPlan} and the same loops over each. Every loop that finds nothing to do backs off with
 * {@link #idleStrategy()} (spin, yield, then park), so five processes of a run share two cores without one
 * spinning the others out.
 * <p>
 * Arguments are {@code key=value}: system (rmcast, aeron, ud, udp), role (pub, sub), local (this process's
 * 127.x address), group, port, subscribers, flush (rmcast's offers per flush), loss, seed (Aeron's loss
 * generator; rdma4j's loss is the soft device's own setting), and the plan's (see {@link McastPlan#args()}).
 * A subscriber prints {@code mcast-ready} once it joined the group, {@code mcast-caught-up} once it has the
 * messages before the paced ones, and {@code mcast-result ...} at the end. The publisher sends the fast messages,
 * waits for a {@code paced} line on its standard input (the harness's word that every subscriber caught up; the
 * input's end counts too), sends the paced ones, prints {@code mcast-sent ...}, and serves repairs until its
 * standard input ends.
 */
public final class McastPeer
{
    /** What a subscriber waits for its first message, and the longest a run may stall. */
    private static final long STALL_NS = TimeUnit.SECONDS.toNanos(60);

    private McastPeer()
    {
    }

    /**
     * @return the idle strategy of every application loop and of Aeron's media driver here: 10 spins, 20 yields,
     *         then parks from 1 us doubling to 100 us.
     */
    public static IdleStrategy idleStrategy()
    {
        return new BackoffIdleStrategy(10, 20, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MICROSECONDS.toNanos(100));
    }

    /**
     * @param argv {@code key=value} arguments.
     * @throws Exception if the run fails; the process then exits non-zero.
     */
    public static void main(final String[] argv) throws Exception
    {
        final Map<String, String> args = new HashMap<>();
        for (final String arg : argv)
        {
            final int eq = arg.indexOf('=');
            if (eq < 1)
            {
                throw new IllegalArgumentException("expected key=value, got '" + arg + "'");
            }
            args.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        final McastPlan plan = McastPlan.of(args);
        final String role = args.get("role");
        final int status = switch (role)
        {
            case "pub" -> publish(args, plan);
            case "sub" -> subscribe(args, plan);
            default -> throw new IllegalArgumentException("role=" + role + ": pub or sub");
        };
        System.out.flush();
        // Aeron's and the soft device's threads are not all daemons: end the process here
        System.exit(status);
    }

    private static McastSource source(final Map<String, String> args, final ByteBuffer message) throws Exception
    {
        return switch (args.get("system"))
        {
            case "rmcast" -> new RmcastSource(args, message);
            case "aeron" -> new AeronMcastSource(args, message);
            case "ud" -> new UdMcastSource(args, message);
            case "udp" -> new UdpMcastSource(args, message);
            default -> throw new IllegalArgumentException("system=" + args.get("system"));
        };
    }

    private static McastSink sink(final Map<String, String> args, final McastStats stats) throws Exception
    {
        return switch (args.get("system"))
        {
            case "rmcast" -> new RmcastSink(args, stats);
            case "aeron" -> new AeronMcastSink(args, stats);
            case "ud" -> new UdMcastSink(args, stats);
            case "udp" -> new UdpMcastSink(args, stats);
            default -> throw new IllegalArgumentException("system=" + args.get("system"));
        };
    }

    /** @return true if the system delivers every message in order, or says it could not. */
    private static boolean reliable(final Map<String, String> args)
    {
        final String system = args.get("system");
        return system.equals("rmcast") || system.equals("aeron");
    }

    private static int publish(final Map<String, String> args, final McastPlan plan) throws Exception
    {
        final ByteBuffer message = ByteBuffer.allocateDirect(plan.size()).order(ByteOrder.nativeOrder());
        final HarnessInput input = new HarnessInput();
        try (McastSource source = source(args, message))
        {
            final IdleStrategy idle = idleStrategy();
            final long paced = plan.pacedFrom();
            final long start = System.nanoTime();
            long seq = 0;
            for (; seq < paced; seq++)
            {
                stamp(message, seq, System.nanoTime());
                offer(source, idle, plan.size(), seq);
            }
            source.flush();
            final long sent = System.nanoTime();
            while (!input.pacedAllowed())
            {
                idle.idle(source.doWork());
            }
            long next = System.nanoTime();
            for (; seq < plan.total(); seq++)
            {
                next += plan.intervalNs();
                while (System.nanoTime() - next < 0)
                {
                    idle.idle(source.doWork());
                }
                idle.reset();
                stamp(message, seq, System.nanoTime());
                offer(source, idle, plan.size(), seq);
                source.flush();
            }
            System.out.printf("mcast-sent messages=%d fast-seconds=%.3f %s%n", seq, (sent - start) / 1e9,
                source.counters());
            System.out.flush();
            // the subscribers may still repair from this side's window, or NAK: serve them until told to stop
            while (!input.ended())
            {
                idle.idle(source.doWork());
            }
            System.out.printf("mcast-closed %s%n", source.counters());
        }
        return 0;
    }

    private static void stamp(final ByteBuffer message, final long seq, final long now)
    {
        message.putLong(0, seq);
        message.putLong(Long.BYTES, now);
    }

    private static void offer(final McastSource source, final IdleStrategy idle, final int length, final long seq)
    {
        final long since = System.nanoTime();
        while (!source.offer(length))
        {
            idle.idle(source.doWork());
            if (System.nanoTime() - since > STALL_NS)
            {
                throw new IllegalStateException("message " + seq + " not taken for 60 s: " + source.counters());
            }
        }
        idle.reset();
    }

    private static int subscribe(final Map<String, String> args, final McastPlan plan) throws Exception
    {
        final McastStats stats = new McastStats(plan, reliable(args));
        try (McastSink sink = sink(args, stats))
        {
            System.out.println("mcast-ready");
            System.out.flush();
            final IdleStrategy idle = idleStrategy();
            long progressNs = System.nanoTime();
            long seen = 0;
            int polls = 0;
            boolean caughtUp = false;
            while (true)
            {
                idle.idle(sink.poll());
                if ((++polls & 0xFF) != 0)
                {
                    continue;
                }
                final long now = System.nanoTime();
                if (!caughtUp && stats.caughtUp(now))
                {
                    caughtUp = true;
                    System.out.println("mcast-caught-up");
                    System.out.flush();
                }
                if (stats.done(now))
                {
                    break;
                }
                if (stats.received() != seen)
                {
                    seen = stats.received();
                    progressNs = now;
                }
                else if (now - progressNs > STALL_NS)
                {
                    System.out.printf("mcast-failed nothing for 60 s after %d messages %s%n", seen, sink.counters());
                    return 2;
                }
            }
            if (stats.failure() != null)
            {
                System.out.printf("mcast-failed %s %s%n", stats.failure(), sink.counters());
                return 3;
            }
            System.out.printf("mcast-result %s %s%n", stats.figures(), sink.counters());
        }
        return 0;
    }

    /**
     * The harness's words on standard input, read on a daemon thread: {@code paced} (every subscriber caught up),
     * then the input's end (the run is over; it allows the paced messages too, so a run by hand with no input
     * goes straight through).
     */
    private static final class HarnessInput
    {
        private volatile boolean paced;
        private volatile boolean ended;

        HarnessInput()
        {
            Thread.ofPlatform().daemon().name("stdin").start(() ->
            {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)))
                {
                    String line;
                    while ((line = in.readLine()) != null)
                    {
                        if (line.equals("paced"))
                        {
                            paced = true;
                        }
                    }
                }
                catch (final IOException ex)
                {
                    // gone: the same as ended
                }
                paced = true;
                ended = true;
            });
        }

        boolean pacedAllowed()
        {
            return paced;
        }

        boolean ended()
        {
            return ended;
        }
    }
}
