package io.rdma4j.bench.compare;

import io.rdma4j.bench.compare.mcast.McastPeer;
import io.rdma4j.bench.compare.mcast.McastPlan;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The multicast rows of the comparison (issue 42): 1 → N, a process per publisher and subscriber, for each
 * message size raw UDP multicast (the baseline), plain UD multicast on the soft device, rdma4j's reliable
 * multicast and Aeron's, the two reliable ones again with injected loss; every process backs off when idle,
 * so that the run holds on two cores (see {@link McastPeer}).
 */
final class McastComparison
{
    /** rdma4j over UDP, as Aeron's channels here (the same-host inbox would carry the repair connections). */
    private static final List<String> SOFT_JVM = List.of("--enable-native-access=ALL-UNNAMED",
        "-Drdma4j.soft.shm=off");
    /** The soft device's loss draws, seeded, plus the process's index: a run drops the same datagrams again. */
    private static final long LOSS_SEED = 4242;

    /**
     * What to run.
     *
     * @param subscribers    subscriber processes.
     * @param sizes          message sizes, each a block of rows.
     * @param loss           the loss of the lossy rows, a fraction.
     * @param small          the plan of sizes up to 4 KiB (messages, warm-up, paced).
     * @param large          the plan's counts above 4 KiB.
     * @param offersPerFlush rmcast's offers packed into one datagram.
     * @param net            the middle octets of every address, {@code A.B}: hosts 127.A.B.x, groups 239.A.B.x.
     * @param firstHost      the publisher's last octet; the subscribers follow.
     * @param firstPort      the first port of the UDP and Aeron groups, two a row.
     * @param timeoutSeconds how long one run may take.
     */
    record Settings(int subscribers, List<Integer> sizes, double loss, McastPlan small, McastPlan large,
        int offersPerFlush, String net, int firstHost, int firstPort, int timeoutSeconds)
    {
        /** The first group's last octet: groups go up by two a run (Aeron's control address is the next one). */
        static final int FIRST_GROUP = 129;

        McastPlan plan(final int size)
        {
            final McastPlan counts = size <= 4096 ? small : large;
            return new McastPlan(size, counts.warmup(), counts.messages(), counts.latency(), counts.intervalNs());
        }
    }

    /** One run's outcome: the slowest subscriber's rate, the worst latencies, the repairs, or why it failed. */
    private record Result(double rate, double p50, double p99, long injected, long repairs, long lossEvents,
        long samples, String failure)
    {
        static Result failed(final String why)
        {
            return new Result(Double.NaN, Double.NaN, Double.NaN, 0, 0, 0, 0, why);
        }

        /** @return the row's note: the failure, or how few latency samples the worst subscriber had. */
        String note(final McastPlan plan, final String otherwise)
        {
            if (failure != null)
            {
                return failure;
            }
            final String few = samples < plan.latency() / 2 ? "latency of " + samples + " paced messages; " : "";
            return (few + otherwise).strip();
        }
    }

    private final PrintStream out;
    private final Settings settings;
    private int runs;

    McastComparison(final PrintStream out, final Settings settings)
    {
        this.out = out;
        this.settings = settings;
    }

    /**
     * @return every row, in the order printed.
     * @throws InterruptedException if interrupted.
     */
    List<McastRow> run() throws InterruptedException
    {
        final List<McastRow> rows = new ArrayList<>();
        for (final int size : settings.sizes())
        {
            final Result udp = run("udp", size, 0);
            final Result ud = run("ud", size, 0);
            final Result rmcast = run("rmcast", size, 0);
            final Result aeron = run("aeron", size, 0);
            final Result rmcastLossy = run("rmcast", size, settings.loss());
            final Result aeronLossy = run("aeron", size, settings.loss());
            final McastPlan plan = settings.plan(size);
            rows.add(row(size, 0, "raw UDP multicast (baseline)", udp, udp, ud, Double.NaN,
                udp.note(plan, "no flow control: what arrived")));
            rows.add(row(size, 0, "rdma4j plain UD multicast", ud, udp, ud, Double.NaN,
                ud.note(plan, "no flow control: what arrived")));
            rows.add(row(size, 0, "rdma4j rmcast", rmcast, udp, ud, Double.NaN, rmcast.note(plan, "")));
            rows.add(row(size, 0, "Aeron multicast", aeron, udp, ud, Double.NaN, aeron.note(plan, "")));
            rows.add(row(size, settings.loss(), "rdma4j rmcast", rmcastLossy, udp, ud, rmcast.rate(),
                rmcastLossy.note(plan, "")));
            rows.add(row(size, settings.loss(), "Aeron multicast", aeronLossy, udp, ud, aeron.rate(),
                aeronLossy.note(plan, "")));
        }
        return rows;
    }

    private static McastRow row(final int size, final double loss, final String system, final Result result,
        final Result udp, final Result ud, final double lossless, final String note)
    {
        return new McastRow(size, loss, system, result.rate(), udp.rate(), lossless, result.p50(), result.p99(),
            udp.p99(), ud.p99(), result.injected(), result.repairs(), result.lossEvents(), note);
    }

    /**
     * Print the table with the header that says how it was measured, and each target of the against it.
     */
    void print(final List<McastRow> rows)
    {
        final McastPlan small = settings.small();
        final McastPlan large = settings.large();
        out.println();
        out.printf(Locale.ROOT, "# multicast 1 -> %d, a process each: up to 4 KiB %d messages measured after %d, " +
            "larger %d after %d, then %d paced %d us (larger: %d us) apart for the latency; rmcast packs up to %d " +
            "offers a datagram%n", settings.subscribers(), small.messages(), small.warmup(), large.messages(),
            large.warmup(), small.latency(), TimeUnit.NANOSECONDS.toMicros(small.intervalNs()),
            TimeUnit.NANOSECONDS.toMicros(large.intervalNs()), settings.offersPerFlush());
        out.println("# no process spins: every loop backs off when idle (Agrona's BackoffIdleStrategy, 10 spins, " +
            "20 yields, parks of 1-100 us),");
        out.println("#   Aeron's media drivers SHARED (one thread) with the same back-off, rdma4j's soft devices in " +
            "their default progress (polling: the polling thread receives, the progress thread parks), UDP (shm off)");
        out.println("# buffers: 4 MiB socket receive buffers on every side (Aeron's so_rcvbuf; its receiver window " +
            "2 MiB), datagrams of up to 4096 B on rdma4j's and Aeron's (the soft MTU, Aeron's mtu=4096), raw UDP's " +
            "one a message (64 KiB: two of 32 KiB)");
        out.printf(Locale.ROOT, "# loss %.0f%%: rdma4j's soft devices drop that share of every datagram they send " +
            "(rdma4j.soft.loss); Aeron's publisher driver of its data datagrams, each subscriber's of its status " +
            "messages and NAKs (RandomLossGenerator)%n", settings.loss() * 100);
        out.println("# msgs/s: the measured messages over their time at the slowest subscriber (raw UDP, plain UD: " +
            "what arrived); goodput: of the same system's lossless rate; p50/p99: one-way, the worst subscriber's; " +
            "dropped: datagrams the injected loss dropped, every process's; repairs: rmcast's READs, Aeron's NAKs; " +
            "lost: unrecoverable-loss events");
        out.println(McastRow.HEADER);
        for (final McastRow row : rows)
        {
            out.println(row.format());
        }
        targets(rows);
        out.flush();
    }

    private void targets(final List<McastRow> rows)
    {
        for (final int size : settings.sizes())
        {
            final McastRow rmcast = find(rows, size, 0, "rdma4j rmcast");
            final McastRow aeron = find(rows, size, 0, "Aeron multicast");
            final McastRow lossy = find(rows, size, settings.loss(), "rdma4j rmcast");
            final McastRow ud = find(rows, size, 0, "rdma4j plain UD multicast");
            out.printf(Locale.ROOT, "# targets at %d B: rmcast / Aeron msgs/s %s (>= 1), rmcast / raw UDP %s " +
                "(>= 1.5), goodput at %.0f%% %s (>= 90%%), p99 / plain UD's %s (<= 2)%n", size,
                verdict(rmcast.rate() / aeron.rate(), 1, true), verdict(rmcast.rateRatio(), 1.5, true),
                settings.loss() * 100, verdict(lossy.goodput(), 0.9, true),
                verdict(rmcast.p99() / ud.p99(), 2, false));
        }
    }

    private static String verdict(final double value, final double target, final boolean atLeast)
    {
        if (Double.isNaN(value))
        {
            return "-";
        }
        final boolean met = atLeast ? value >= target : value <= target;
        return String.format(Locale.ROOT, "%.2f %s", value, met ? "met" : "MISSED");
    }

    private static McastRow find(final List<McastRow> rows, final int size, final double loss, final String system)
    {
        return rows.stream().filter(r -> r.size() == size && r.loss() == loss && r.system().equals(system))
            .findFirst().orElseThrow();
    }

    private String host(final int offset)
    {
        return "127." + settings.net() + "." + (settings.firstHost() + offset);
    }

    private List<String> jvm(final String system, final double loss, final int index)
    {
        final List<String> options = new ArrayList<>();
        switch (system)
        {
            case "rmcast", "ud" ->
            {
                options.addAll(SOFT_JVM);
                // the provider's one device is the process's own address, not a 127.0.0.1 of every process
                options.add("-Drdma4j.soft.address=" + host(index));
                if (loss > 0)
                {
                    options.add("-Drdma4j.soft.loss=" + loss);
                    options.add("-Drdma4j.soft.loss.seed=" + (LOSS_SEED + 100L * index));
                }
            }
            case "aeron" -> options.addAll(Compare.AERON_JVM);
            default ->
            {
                // raw UDP: nothing of either
            }
        }
        return options;
    }

    /**
     * One run: the subscribers, and once each joined, the publisher; the subscribers' results, then the
     * publisher told to stop.
     */
    private Result run(final String system, final int size, final double loss) throws InterruptedException
    {
        final int row = runs++;
        final McastPlan plan = settings.plan(size);
        out.printf(Locale.ROOT, "# mcast %dB loss %.0f%%: %s ...%n", size, loss * 100, system);
        out.flush();
        // a group and port of its own per run: nothing of an earlier run's processes reaches this one
        final List<String> common = new ArrayList<>(plan.args());
        common.addAll(List.of("system=" + system, "group=239." + settings.net() + "." + (Settings.FIRST_GROUP + 2 * row),
            "port=" + (settings.firstPort() + 2 * row), "subscribers=" + settings.subscribers(),
            "flush=" + settings.offersPerFlush(), "loss=" + loss, "seed=" + LOSS_SEED));
        final List<Child> subscribers = new ArrayList<>();
        Child publisher = null;
        try
        {
            for (int i = 1; i <= settings.subscribers(); i++)
            {
                final List<String> args = new ArrayList<>(common);
                args.addAll(List.of("role=sub", "local=" + host(i)));
                subscribers.add(Child.start(jvm(system, loss, i), McastPeer.class.getName(), args));
            }
            for (final Child sub : subscribers)
            {
                if (!sub.awaitLine(l -> l.equals("mcast-ready"), settings.timeoutSeconds(), TimeUnit.SECONDS))
                {
                    return Result.failed("subscriber: " + sub.lastLine());
                }
            }
            final List<String> args = new ArrayList<>(common);
            args.addAll(List.of("role=pub", "local=" + host(0)));
            publisher = Child.start(jvm(system, loss, 0), McastPeer.class.getName(), args);
            // the paced messages once every subscriber has the fast ones: none is timed behind their backlog
            for (final Child sub : subscribers)
            {
                if (!sub.awaitLine(l -> l.equals("mcast-caught-up") || l.startsWith("mcast-failed"),
                    settings.timeoutSeconds(), TimeUnit.SECONDS))
                {
                    return Result.failed("subscriber: " + sub.lastLine() + "; publisher: " + publisher.lastLine());
                }
            }
            publisher.send("paced");
            double rate = Double.POSITIVE_INFINITY;
            double p50 = 0;
            double p99 = 0;
            long repairs = 0;
            long lossEvents = 0;
            long samples = Long.MAX_VALUE;
            long injected = 0;
            for (final Child sub : subscribers)
            {
                if (sub.await(settings.timeoutSeconds(), TimeUnit.SECONDS) != 0)
                {
                    return Result.failed("subscriber: " + sub.lastLine() + "; publisher: " + publisher.lastLine());
                }
                final Map<String, String> result = result(sub, "mcast-result ");
                if (result == null)
                {
                    return Result.failed("no result: " + sub.lastLine());
                }
                rate = Math.min(rate, Double.parseDouble(result.get("rate")));
                final long taken = Long.parseLong(result.get("latency-samples"));
                // a subscriber with no latency sample has no percentile: the row's is not the others' alone
                p50 = taken == 0 ? Double.NaN : Math.max(p50, Double.parseDouble(result.get("p50")));
                p99 = taken == 0 ? Double.NaN : Math.max(p99, Double.parseDouble(result.get("p99")));
                repairs += Long.parseLong(result.get("repair-requests"));
                lossEvents += Long.parseLong(result.get("loss-events"));
                samples = Math.min(samples, Long.parseLong(result.get("latency-samples")));
                injected = add(injected, Long.parseLong(result.get("injected")));
            }
            publisher.endInput();
            if (publisher.await(30, TimeUnit.SECONDS) != 0)
            {
                return Result.failed("publisher: " + publisher.lastLine());
            }
            final Map<String, String> closed = result(publisher, "mcast-closed ");
            if (closed == null)
            {
                return Result.failed("publisher: " + publisher.lastLine());
            }
            injected = add(injected, Long.parseLong(closed.get("injected")));
            out.printf(Locale.ROOT, "#   %.0f msgs/s, p99 %.1f us, dropped %d, repairs %d; publisher %s; %s%n", rate,
                p99, injected, repairs, result(publisher, "mcast-sent "), closed);
            return new Result(rate, p50, p99, injected, repairs, lossEvents, samples, null);
        }
        catch (final IOException ex)
        {
            return Result.failed(ex.getMessage());
        }
        finally
        {
            subscribers.forEach(Child::close);
            if (publisher != null)
            {
                publisher.close();
            }
        }
    }

    /** @return the sum of two drop counts, -1 if either is not known. */
    private static long add(final long a, final long b)
    {
        return a < 0 || b < 0 ? -1 : a + b;
    }

    /** @return the {@code key=value} words of the child's line that starts with the prefix, or null. */
    private static Map<String, String> result(final Child child, final String prefix)
    {
        for (final String line : child.lines())
        {
            if (line.startsWith(prefix))
            {
                final Map<String, String> words = new HashMap<>();
                for (final String word : line.substring(prefix.length()).split(" "))
                {
                    final int eq = word.indexOf('=');
                    if (eq > 0)
                    {
                        words.put(word.substring(0, eq), word.substring(eq + 1));
                    }
                }
                return words;
            }
        }
        return null;
    }
}
