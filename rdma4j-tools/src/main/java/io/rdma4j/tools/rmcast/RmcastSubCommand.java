package io.rdma4j.tools.rmcast;

import io.rdma4j.rmcast.JoinPosition;
import io.rdma4j.rmcast.MessageHandler;
import io.rdma4j.rmcast.MulticastConfig;
import io.rdma4j.rmcast.Subscription;
import io.rdma4j.rmcast.SubscriptionListener;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code rdma4j rmcast_sub}: subscribe to a reliable multicast group and report, once a second, the rate, the
 * gaps and what repaired them, the losses and the position lag.
 */
@Command(name = "rmcast_sub", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Reliable multicast subscriber (io.rdma4j.rmcast): rates, gaps repaired, losses and lag each second.")
public final class RmcastSubCommand implements Callable<Integer>
{
    @Option(names = "-b", paramLabel = "bind_address", required = true, description = "this device's address")
    private String bindAddress;

    @Option(names = "-m", paramLabel = "group", required = true, description = "the multicast group")
    private String group;

    @Option(names = "-n", paramLabel = "messages", defaultValue = "0",
        description = "stop after this many messages, 0 for no end (default: ${DEFAULT-VALUE})")
    private long count;

    @Option(names = "--replay", description = "join a running session at the oldest fragment its window holds")
    private boolean replay;

    @Option(names = "--idle-exit", paramLabel = "seconds", defaultValue = "0",
        description = "stop when no session has been seen for this long after the first, 0 for never")
    private int idleExit;

    @Option(names = "--timeout", paramLabel = "seconds", defaultValue = "0",
        description = "give up after this long (exit status 1, the counters printed), 0 for never (a script's bound "
            + "on a run that never sees a session; default: ${DEFAULT-VALUE})")
    private int timeout;

    @Option(names = "--liveness", paramLabel = "ms", defaultValue = "2000",
        description = "how long a silent member or publisher is still taken as alive, ms (the member and publisher "
            + "timeouts; raise it where a peer may stall, as an emulated guest does; default: ${DEFAULT-VALUE})")
    private long livenessMs;

    @Override
    public Integer call() throws Exception
    {
        final long[] delivered = {0, 0};
        final long[] lost = {0};
        final MessageHandler handler = (buffer, offset, length, sessionId, position) ->
        {
            delivered[0]++;
            delivered[1] += length;
        };
        final SubscriptionListener listener = new SubscriptionListener()
        {
            @Override
            public void onImageAvailable(final int sessionId, final long startSequence)
            {
                System.out.printf("rmcast_sub: session %08x available at %d%n", sessionId, startSequence);
            }

            @Override
            public void onUnrecoverableLoss(final int sessionId, final long from, final long to)
            {
                lost[0] += to - from;
                System.out.printf("rmcast_sub: session %08x LOST fragments [%d, %d)%n", sessionId, from, to);
            }

            @Override
            public void onImageUnavailable(final int sessionId, final long position)
            {
                System.out.printf("rmcast_sub: session %08x gone at %d%n", sessionId, position);
            }
        };
        final MulticastConfig config = new MulticastConfig()
            .memberTimeoutNs(TimeUnit.MILLISECONDS.toNanos(livenessMs))
            .publisherTimeoutNs(TimeUnit.MILLISECONDS.toNanos(livenessMs))
            .maxMessageLength(16 * 1024 * 1024)
            .joinPosition(replay ? JoinPosition.REPLAY : JoinPosition.LIVE);
        try (Subscription subscription = Subscription.open(config, InetAddress.getByName(bindAddress),
            new InetSocketAddress(InetAddress.getByName(group), 0), listener))
        {
            System.out.printf("rmcast_sub: joined %s on %s%n", group, bindAddress);
            final RateLine rates = new RateLine();
            long nextReport = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            long lastSeenSession = 0;
            boolean seen = false;
            final long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeout);
            boolean gaveUp = false;
            while (count == 0 || delivered[0] < count)
            {
                if (subscription.poll(handler, 64) == 0)
                {
                    Thread.onSpinWait();
                }
                final long now = System.nanoTime();
                if (timeout > 0 && now - giveUpAt > 0)
                {
                    gaveUp = true;
                    break;
                }
                if (subscription.imageCount() > 0)
                {
                    seen = true;
                    lastSeenSession = now;
                }
                else if (seen && idleExit > 0 && now - lastSeenSession > TimeUnit.SECONDS.toNanos(idleExit))
                {
                    break;
                }
                if (now >= nextReport)
                {
                    nextReport = now + TimeUnit.SECONDS.toNanos(1);
                    report(subscription, rates);
                }
            }
            report(subscription, rates);
            System.out.printf("rmcast_sub: delivered %d messages, %d bytes, %d fragments lost; %s%n", delivered[0],
                delivered[1], lost[0], subscription.counters());
            if (gaveUp)
            {
                System.out.printf("rmcast_sub: gave up after %d s with %d of %d messages%n", timeout, delivered[0],
                    count);
            }
            return lost[0] == 0 && !gaveUp ? 0 : 1;
        }
    }

    private static void report(final Subscription subscription, final RateLine rates)
    {
        final double seconds = rates.advance(subscription.counters());
        System.out.printf("sub: %,.0f msg/s, %,.2f MB/s, sessions %d, gaps %d, repaired %d by %d READs, lost %d, " +
            "duplicates %d, lag %d fragments%n", rates.delta("messages_delivered") / seconds,
            rates.delta("bytes_delivered") / seconds / 1e6,
            subscription.imageCount(), rates.total("gaps"), rates.total("fragments_repaired"),
            rates.total("repair_reads"), rates.total("fragments_lost"), rates.total("duplicates"),
            subscription.maxLag());
    }
}
