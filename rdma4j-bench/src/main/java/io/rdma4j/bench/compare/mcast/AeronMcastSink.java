package io.rdma4j.bench.compare.mcast;

import io.aeron.FragmentAssembler;
import io.aeron.Subscription;
import io.aeron.driver.status.SystemCounterDescriptor;
import io.aeron.logbuffer.FragmentHandler;

import java.util.Map;

/**
 * A subscription to Aeron's multicast ({@link AeronDriver#channel}), messages reassembled from their fragments.
 */
final class AeronMcastSink implements McastSink
{
    /** Fragments one poll may deliver, as rmcast's side. */
    private static final int FRAGMENT_LIMIT = 64;

    private final AeronDriver driver;
    private final Subscription subscription;
    private final FragmentHandler handler;

    AeronMcastSink(final Map<String, String> args, final McastStats stats)
    {
        handler = new FragmentAssembler((buffer, offset, length, header) ->
            stats.onMessage(buffer.getLong(offset), buffer.getLong(offset + Long.BYTES)));
        driver = new AeronDriver(args, false);
        subscription = driver.aeron().addSubscription(AeronDriver.channel(args), AeronMcastSource.streamId());
    }

    @Override
    public int poll()
    {
        return subscription.poll(handler, FRAGMENT_LIMIT);
    }

    @Override
    public String counters()
    {
        return "repair-requests=" + driver.counter(SystemCounterDescriptor.NAK_MESSAGES_SENT) + " loss-events=" +
            driver.counter(SystemCounterDescriptor.LOSS_GAP_FILLS) + " injected=" + driver.injected();
    }

    @Override
    public void close()
    {
        subscription.close();
        driver.close();
    }
}
