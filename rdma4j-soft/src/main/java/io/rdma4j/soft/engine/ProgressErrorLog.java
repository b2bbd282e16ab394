package io.rdma4j.soft.engine;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * What the device's progress loop does with a {@link Throwable} it caught: a bug, or the JVM out of
 * memory or stack, never a reason to stop receiving. Each one is counted in
 * {@link SoftCounter#PROGRESS_ERRORS}, apart from the packet drops. The first is logged with its
 * stack trace; after it, at most one line a second says how many more came and what the last was,
 * so a packet that triggers a bug on every arrival cannot flood the log.
 * <p>
 * Called by the progress thread and by polling threads, under the engine's receive lock or not,
 * so it synchronises; it runs only when something has already gone wrong.
 */
final class ProgressErrorLog
{
    private static final long INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);

    private final String deviceName;
    private final Counters counters;
    private final System.Logger logger;
    private final LongSupplier clock;
    private boolean loggedFirst;
    private long lastLogNs;
    private long unreported;
    private Throwable last;

    ProgressErrorLog(final String deviceName, final Counters counters, final System.Logger logger,
        final LongSupplier clock)
    {
        this.deviceName = deviceName;
        this.counters = counters;
        this.logger = logger;
        this.clock = clock;
    }

    /**
     * Count and perhaps log a throwable the loop survived. Never throws: a logger that fails (out of
     * memory again, say) must not end the thread this is meant to keep alive.
     *
     * @param error what was caught.
     */
    void onError(final Throwable error)
    {
        try
        {
            log(error);
        }
        catch (final Throwable ignored)
        {
            // nothing more can be done about it than counting
        }
        finally
        {
            // after the log, so whoever sees the count sees what was logged
            counters.increment(SoftCounter.PROGRESS_ERRORS);
        }
    }

    private synchronized void log(final Throwable error)
    {
        final long now = clock.getAsLong();
        if (!loggedFirst)
        {
            loggedFirst = true;
            lastLogNs = now;
            logger.log(System.Logger.Level.ERROR, deviceName + ": the progress loop caught " + error +
                "; the device goes on receiving (counted in " + SoftCounter.PROGRESS_ERRORS.counterName() + ")",
                error);
            return;
        }
        unreported++;
        last = error;
        if (now - lastLogNs >= INTERVAL_NS)
        {
            logger.log(System.Logger.Level.ERROR, deviceName + ": the progress loop caught " + unreported +
                " more error(s) in " + TimeUnit.NANOSECONDS.toMillis(now - lastLogNs) + " ms, the last " + last);
            lastLogNs = now;
            unreported = 0;
            last = null;
        }
    }
}
