package io.rdma4j.soft;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What one class logs while a test runs, through java.util.logging (System.Logger's default backend): captured,
 * not printed, so that a test's output stays its failures.
 */
public final class CapturedLog extends Handler implements AutoCloseable
{
    private final Logger logger;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final CountDownLatch first = new CountDownLatch(1);

    /**
     * @param source the class whose logger ({@code System.getLogger(source.getName())}) is captured.
     */
    public CapturedLog(final Class<?> source)
    {
        this(source.getName());
    }

    /**
     * @param loggerName the logger's name, for a class the test cannot see.
     */
    public CapturedLog(final String loggerName)
    {
        logger = Logger.getLogger(loggerName);
        logger.addHandler(this);
        logger.setUseParentHandlers(false);
    }

    /**
     * @return what was logged so far.
     */
    public List<LogRecord> records()
    {
        return List.copyOf(records);
    }

    /**
     * @return the first record, waiting up to 20 s for it.
     * @throws InterruptedException if interrupted while waiting.
     */
    public LogRecord await() throws InterruptedException
    {
        assertTrue(first.await(20, TimeUnit.SECONDS), "nothing logged within 20 s");
        return records.getFirst();
    }

    @Override
    public void publish(final LogRecord record)
    {
        records.add(record);
        first.countDown();
    }

    @Override
    public void flush()
    {
    }

    @Override
    public void close()
    {
        logger.setUseParentHandlers(true);
        logger.removeHandler(this);
    }
}
