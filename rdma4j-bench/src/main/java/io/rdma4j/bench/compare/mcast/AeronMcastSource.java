package io.rdma4j.bench.compare.mcast;

import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.aeron.driver.status.SystemCounterDescriptor;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.Map;

/**
 * Aeron's multicast publisher: an exclusive publication on {@link AeronDriver#channel}, its driver's thread
 * doing the sending, the NAKs and the retransmissions.
 */
final class AeronMcastSource implements McastSource
{
    private static final int STREAM_ID = 1042;

    private final AeronDriver driver;
    private final ExclusivePublication publication;
    private final UnsafeBuffer message;

    AeronMcastSource(final Map<String, String> args, final ByteBuffer message)
    {
        this.message = new UnsafeBuffer(message);
        driver = new AeronDriver(args, true);
        publication = driver.aeron().addExclusivePublication(AeronDriver.channel(args), STREAM_ID);
    }

    static int streamId()
    {
        return STREAM_ID;
    }

    @Override
    public boolean offer(final int length)
    {
        final long result = publication.offer(message, 0, length);
        if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED)
        {
            throw new IllegalStateException("aeron publication: " + Publication.errorString(result));
        }
        return result > 0;
    }

    @Override
    public int doWork()
    {
        // the driver's own thread sends; nothing is owed from this one
        return 0;
    }

    @Override
    public void flush()
    {
        // an offer is in the term at once, and the driver's sender takes it from there
    }

    @Override
    public String counters()
    {
        return "injected=" + driver.injected() + " naks-received=" + driver.counter(SystemCounterDescriptor.NAK_MESSAGES_RECEIVED) + " retransmits=" +
            driver.counter(SystemCounterDescriptor.RETRANSMITS_SENT) + " back-pressured=" +
            driver.counter(SystemCounterDescriptor.SENDER_FLOW_CONTROL_LIMITS);
    }

    @Override
    public void close()
    {
        publication.close();
        driver.close();
    }
}
