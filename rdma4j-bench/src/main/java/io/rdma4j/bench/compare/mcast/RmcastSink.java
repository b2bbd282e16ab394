package io.rdma4j.bench.compare.mcast;

import io.rdma4j.rmcast.MessageHandler;
import io.rdma4j.rmcast.MulticastConfig;
import io.rdma4j.rmcast.Subscription;
import io.rdma4j.rmcast.SubscriptionListener;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * A subscription to rdma4j's reliable multicast ({@link Subscription}), the defaults but for the longest
 * message; it counts the unrecoverable-loss events it is told of.
 */
final class RmcastSink implements McastSink, SubscriptionListener
{
    /** Fragments one poll may deliver, as rmcast's own tools poll. */
    private static final int FRAGMENT_LIMIT = 64;

    private final Subscription subscription;
    private final MessageHandler handler;
    private final DeviceDrops drops;
    private final McastStats stats;
    private long lossEvents;

    RmcastSink(final Map<String, String> args, final McastStats stats) throws InterruptedException,
        java.net.UnknownHostException
    {
        this.stats = stats;
        this.handler = (final MemorySegment buffer, final long offset, final int length, final int sessionId,
            final long position) -> stats.onMessage(buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset),
            buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + Long.BYTES));
        final MulticastConfig config = new MulticastConfig()
            .maxMessageLength(maxMessageLength(Integer.parseInt(args.get("size"))));
        subscription = Subscription.open(config, InetAddress.getByName(args.get("local")),
            new InetSocketAddress(InetAddress.getByName(args.get("group")), 0), this);
        drops = new DeviceDrops(args.get("local"));
    }

    /** @return the longest message both ends agree on: 64 KiB, or the plan's size if more. */
    static int maxMessageLength(final int size)
    {
        return Math.max(size, 64 * 1024);
    }

    @Override
    public void onUnrecoverableLoss(final int sessionId, final long fromSequence, final long toSequence)
    {
        lossEvents++;
        stats.onLoss("session " + sessionId + " sequences " + fromSequence + ".." + toSequence);
    }

    @Override
    public int poll()
    {
        return subscription.poll(handler, FRAGMENT_LIMIT);
    }

    @Override
    public String counters()
    {
        final Map<String, Long> c = subscription.counters();
        return "repair-requests=" + c.get("repair_reads") + " loss-events=" + lossEvents + " gaps=" + c.get("gaps") +
            " repaired=" + c.get("fragments_repaired") + " duplicates=" + c.get("duplicates") + " injected=" +
            drops.injected();
    }

    @Override
    public void close()
    {
        drops.close();
        subscription.close();
    }
}
