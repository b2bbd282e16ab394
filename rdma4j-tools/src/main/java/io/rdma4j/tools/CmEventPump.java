package io.rdma4j.tools;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.EventChannel;

import java.io.PrintWriter;
import java.util.concurrent.TimeUnit;

/**
 * mckey's cma_thread: once every id joined, acknowledge whatever else arrives (so a later leave,
 * which waits for acknowledgements, never hangs) and report multicast errors and address changes.
 */
final class CmEventPump
{
    private final EventChannel channel;
    private final PrintWriter out;
    private final Thread thread;
    private volatile boolean running = true;

    CmEventPump(final EventChannel channel, final PrintWriter out)
    {
        this.channel = channel;
        this.out = out;
        this.thread = Thread.ofPlatform().daemon().name("mckey-cm").unstarted(this::loop);
    }

    void start()
    {
        thread.start();
    }

    /**
     * Stop and wait for the thread, so no event is taken after the caller starts leaving groups.
     */
    void stop() throws InterruptedException
    {
        running = false;
        thread.join(TimeUnit.SECONDS.toMillis(5));
    }

    private void loop()
    {
        while (running)
        {
            final CmEvent event;
            try
            {
                event = channel.getEvent(100, TimeUnit.MILLISECONDS);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            catch (final RuntimeException ex)
            {
                out.println("rdma_get_cm_event: " + ex.getMessage());
                return;
            }
            if (event == null)
            {
                continue;
            }
            if (event.type() == CmEventType.MULTICAST_ERROR || event.type() == CmEventType.ADDR_CHANGE)
            {
                out.printf("mckey: event: %s, status: %d%n", event.type().description(), event.status());
            }
            event.ack();
        }
    }
}
