package io.rdma4j.bench.compare.mcast;

import org.HdrHistogram.Histogram;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A receiver's account of a run: the rate at which the measured messages arrived (from the first of them to
 * the last, at this receiver), and the one-way latency of the paced ones (arrival less the sender's stamp, both
 * CLOCK_MONOTONIC): only of those sent after this receiver had the last of the fast ones, so that no sample
 * waited behind the backlog of the rate run (a flow-control window of rmcast's is 8192 datagrams). A reliable system's receiver must get every message, in order: the first message out of
 * sequence ends the run as a failure. An unreliable one (raw UDP, plain UD) counts what arrived, and is done
 * once the last message came or nothing came for {@link #QUIET_NS}.
 */
final class McastStats
{
    /** An unreliable receiver that heard nothing this long after its last message takes the run as over. */
    static final long QUIET_NS = TimeUnit.SECONDS.toNanos(2);
    /** An unreliable receiver that heard nothing this long after fast messages has all of them it will get. */
    static final long CAUGHT_UP_QUIET_NS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final long HIGHEST_NS = TimeUnit.SECONDS.toNanos(60);

    private final McastPlan plan;
    private final boolean reliable;
    /** The first paced messages are the paced path's own warm-up (its first sleeps and wake-ups): not recorded. */
    private final long recordFrom;
    private final Histogram latency = new Histogram(HIGHEST_NS, 3);
    private long received;
    private long measured;
    private long firstMeasuredNs;
    private long lastMeasuredNs;
    private long lastSeq = -1;
    private long lastArrivalNs;
    /** When the last message before the paced ones arrived: a paced message sent earlier waited behind them. */
    private long lastFastArrivalNs;
    private String failure;
    /** Reassembly of an unreliable system's multi-datagram message: its sequence and the datagrams seen. */
    private long chunkSeq = -1;
    private int chunksSeen;

    McastStats(final McastPlan plan, final boolean reliable)
    {
        this.plan = plan;
        this.reliable = reliable;
        this.recordFrom = plan.pacedFrom() + plan.latency() / 10;
    }

    /**
     * A whole message arrived.
     *
     * @param seq   its sequence.
     * @param stamp its sender's {@link System#nanoTime()}.
     */
    void onMessage(final long seq, final long stamp)
    {
        final long now = System.nanoTime();
        if (reliable && seq != received && failure == null)
        {
            failure = "out of order: message " + seq + " where " + received + " was due";
        }
        received++;
        lastSeq = seq;
        lastArrivalNs = now;
        if (seq < plan.pacedFrom())
        {
            lastFastArrivalNs = now;
            if (seq >= plan.warmup())
            {
                if (measured++ == 0)
                {
                    firstMeasuredNs = now;
                }
                lastMeasuredNs = now;
            }
        }
        else if (seq >= recordFrom && stamp - lastFastArrivalNs >= 0)
        {
            latency.recordValue(Math.min(Math.max(now - stamp, 0), HIGHEST_NS));
        }
    }

    /**
     * The system reported messages lost (rmcast's unrecoverable-loss event): a reliable run fails on it at once,
     * rather than waiting for the next message to show the gap, which may never come (the publisher holds the
     * paced messages back until every subscriber caught up).
     *
     * @param what the loss, for the failure line.
     */
    void onLoss(final String what)
    {
        if (reliable && failure == null)
        {
            failure = "unrecoverable loss after " + received + " messages: " + what;
        }
    }

    /**
     * One datagram of an unreliable system's message, which it sends in {@code chunks} datagrams: the message
     * counts once all of them came, in order.
     */
    void onDatagram(final long seq, final long stamp, final int chunk, final int chunks)
    {
        if (seq != chunkSeq)
        {
            chunkSeq = seq;
            chunksSeen = 0;
        }
        if (chunk == chunksSeen++ && chunk == chunks - 1)
        {
            onMessage(seq, stamp);
        }
    }

    /**
     * @param now the time.
     * @return true once this receiver has every message before the paced ones that it will get: the harness
     *         starts the paced ones when all have, so that none waits behind the rate run's backlog (MIN flow
     *         control lets rmcast's publisher run a window, 8192 datagrams, ahead of the slowest).
     */
    boolean caughtUp(final long now)
    {
        if (reliable)
        {
            return received >= plan.pacedFrom() || failure != null;
        }
        return lastSeq >= plan.pacedFrom() - 1 || received > 0 && now - lastArrivalNs > CAUGHT_UP_QUIET_NS;
    }

    /**
     * @param now the time.
     * @return true when this receiver has all it will get, or failed.
     */
    boolean done(final long now)
    {
        if (failure != null || received == plan.total())
        {
            return true;
        }
        return !reliable && (lastSeq == plan.total() - 1 || received > 0 && now - lastArrivalNs > QUIET_NS);
    }

    /** @return why the run failed, or null. */
    String failure()
    {
        return failure;
    }

    /** @return messages received. */
    long received()
    {
        return received;
    }

    /**
     * @return the result line's figures: received, measured, rate (messages/s), p50, p99, max (us).
     */
    String figures()
    {
        final double seconds = (lastMeasuredNs - firstMeasuredNs) / 1e9;
        final double rate = measured > 1 && seconds > 0 ? (measured - 1) / seconds : 0;
        return String.format(Locale.ROOT, "received=%d measured=%d rate=%.1f p50=%.2f p99=%.2f max=%.2f " +
            "latency-samples=%d", received, measured, rate, latency.getValueAtPercentile(50) / 1e3,
            latency.getValueAtPercentile(99) / 1e3, latency.getMaxValue() / 1e3, latency.getTotalCount());
    }
}
