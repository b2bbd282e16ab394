package io.rdma4j.stat;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Keeps {@link StatFile}s current for a module that has no thread of its own to do it (reliable multicast's
 * publications and subscriptions, whose threads are the application's): one daemon thread copies each file's
 * counters in every {@value #PERIOD_MS} ms, every {@value #QUIET_PERIOD_MS} ms once none moved for
 * {@value #QUIET_ROUNDS} rounds, and a round where none moved writes nothing. The thread runs while a file is
 * published and ends after the last is removed, to start again with the next. While any is published, a shutdown
 * hook deletes them as the process exits (a return from main, SIGTERM, Ctrl-C), so that {@code rdma4j stat} does
 * not list a process that is gone; after SIGKILL the next reader or writer removes what names a dead pid.
 * <p>
 * A file another process truncates or replaces is abandoned and said once; the counting goes on.
 */
public final class StatFilePublisher
{
    private static final long PERIOD_MS = 100;
    /** An idle process wakes once a second, not ten times; a file whose counters start moving shows it within this. */
    private static final long QUIET_PERIOD_MS = 1000;
    private static final int QUIET_ROUNDS = 20;

    private final String threadName;
    private final System.Logger logger;
    private final List<Published> files = new CopyOnWriteArrayList<>();
    /** Whether the thread runs, and the exit hook while it does; guarded by {@link #files}' monitor. */
    private boolean running;
    private Thread exitHook;

    /**
     * @param threadName the publishing thread's name, which says whose files it writes.
     * @param logger     where an abandoned file is said.
     */
    public StatFilePublisher(final String threadName, final System.Logger logger)
    {
        this.threadName = Objects.requireNonNull(threadName, "threadName");
        this.logger = Objects.requireNonNull(logger, "logger");
    }

    /**
     * Publish a file from now until the returned handle is closed: once here, with its describe section, then on
     * the publishing thread.
     *
     * @param file     a file just made, which the handle closes (and so deletes).
     * @param values   its counters' values, read from the publishing thread.
     * @param describe its describe section's text, written once; null for none.
     * @return the handle that stops the publishing and deletes the file.
     */
    public Registration add(final StatFile file, final CounterValues values, final String describe)
    {
        final Published published = new Published(file, values);
        published.publish(describe, logger);
        synchronized (files)
        {
            files.add(published);
            if (!running)
            {
                running = true;
                exitHook = Thread.ofPlatform().name(threadName + "-exit").unstarted(this::closeAll);
                Runtime.getRuntime().addShutdownHook(exitHook);
                Thread.ofPlatform().daemon().name(threadName).start(this::run);
            }
        }
        return new Registration(this, published);
    }

    /**
     * @return how many files are published now.
     */
    public int size()
    {
        return files.size();
    }

    private void remove(final Published published)
    {
        synchronized (files)
        {
            files.remove(published);
        }
        published.file.close();
    }

    /** The exit hook: every file still published is deleted (never half-written: publishing holds the file). */
    private void closeAll()
    {
        files.forEach(published -> published.file.close());
    }

    private void run()
    {
        long periodMs = PERIOD_MS;
        while (true)
        {
            try
            {
                TimeUnit.MILLISECONDS.sleep(periodMs);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            synchronized (files)
            {
                // an add after this sees running false and starts a new thread and hook
                if (files.isEmpty())
                {
                    running = false;
                    removeExitHook();
                    return;
                }
            }
            boolean quiet = true;
            for (final Published published : files)
            {
                published.publish(null, logger);
                quiet &= published.file.unchangedRounds() >= QUIET_ROUNDS;
            }
            periodMs = quiet ? QUIET_PERIOD_MS : PERIOD_MS;
        }
    }

    private void removeExitHook()
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(exitHook);
        }
        catch (final IllegalStateException ex)
        {
            // the process is exiting: the hook runs, and finds no file
        }
        exitHook = null;
    }

    /** A file, where its values come from, and whether its abandonment was said. */
    private static final class Published
    {
        private final StatFile file;
        private final CounterValues values;
        private boolean said;

        Published(final StatFile file, final CounterValues values)
        {
            this.file = Objects.requireNonNull(file, "file");
            this.values = Objects.requireNonNull(values, "values");
        }

        void publish(final String describe, final System.Logger logger)
        {
            if (!file.publish(values, describe) && file.abandoned() != null && !said)
            {
                said = true;
                logger.log(System.Logger.Level.WARNING, "rdma4j: " + file.abandoned());
            }
        }
    }

    /**
     * A file being published: closing it stops the publishing and deletes the file. Idempotent.
     */
    public static final class Registration implements AutoCloseable
    {
        private final StatFilePublisher publisher;
        private final Published published;

        private Registration(final StatFilePublisher publisher, final Published published)
        {
            this.publisher = publisher;
            this.published = published;
        }

        /**
         * @return the file.
         */
        public StatFile file()
        {
            return published.file;
        }

        @Override
        public void close()
        {
            publisher.remove(published);
        }
    }
}
