package io.rdma4j.bench.compare.mcast;

import io.aeron.Aeron;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.driver.ext.DebugReceiveChannelEndpoint;
import io.aeron.driver.ext.DebugSendChannelEndpoint;
import io.aeron.driver.ext.RandomLossGenerator;
import io.aeron.driver.status.SystemCounterDescriptor;

import java.io.File;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An Aeron process's embedded media driver and client: {@link ThreadingMode#SHARED} (conductor, sender and
 * receiver on one thread) backing off as the application's loops do ({@link McastPeer#idleStrategy()}), its
 * directory in {@code /dev/shm} where there is one. Aeron's defaults but for the term (4 MiB), the socket receive
 * buffer (4 MiB, as the raw UDP receivers ask and the soft device gets where {@code net.core.rmem_max} is 4 MiB;
 * Aeron's 128 KiB default overran at 64 KiB messages and cut its rate fourfold, with NAKs at no loss) and the
 * receiver window (2 MiB, half the term, the most it allows; the 128 KiB default held its rate to half, as
 * rmcast's window is 8192 datagrams). With {@code loss=} above 0 it injects loss with Aeron's own
 * generator, as rdma4j's soft device does on its side, on what each process sends: the publisher's driver drops
 * that share of its data datagrams (retransmissions and heartbeats included), a subscriber's of its status
 * messages and NAKs.
 */
final class AeronDriver implements AutoCloseable
{
    private static final int TERM_LENGTH = 4 << 20;

    private final MediaDriver driver;
    private final Aeron aeron;
    private final AtomicLong injected = new AtomicLong();

    AeronDriver(final Map<String, String> args, final boolean publisher)
    {
        final String shm = "/dev/shm";
        final File parent = new File(shm).isDirectory() ? new File(shm) : new File(System.getProperty("java.io.tmpdir"));
        final MediaDriver.Context context = new MediaDriver.Context()
            // named by the process's address and port: a run killed before its driver closed leaves a directory
            // that the next run of the same place deletes on start, not one more each time
            .aeronDirectoryName(new File(parent, "rdma4j-aeron-mcast-" + args.get("local") + "-" + args.get("port"))
                .getAbsolutePath())
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(McastPeer.idleStrategy())
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .termBufferSparseFile(true)
            .publicationTermBufferLength(TERM_LENGTH)
            .ipcTermBufferLength(1 << 16)
            .socketRcvbufLength(4 << 20)
            .initialWindowLength(TERM_LENGTH / 2);
        final double loss = Double.parseDouble(args.getOrDefault("loss", "0"));
        if (loss > 0)
        {
            final long seed = Long.parseLong(args.getOrDefault("seed", "42"));
            if (publisher)
            {
                context.sendChannelEndpointSupplier((channel, status, ctx) -> new DebugSendChannelEndpoint(channel,
                    status, ctx, new CountingLoss(loss, seed, injected), new RandomLossGenerator(0, seed)));
            }
            else
            {
                context.receiveChannelEndpointSupplier((channel, dispatcher, status, ctx) ->
                    new DebugReceiveChannelEndpoint(channel, dispatcher, status, ctx, new RandomLossGenerator(0, seed),
                        new CountingLoss(loss, seed, injected)));
            }
        }
        driver = MediaDriver.launchEmbedded(context);
        aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
    }

    /**
     * @param args {@code group=} (its last octet odd: Aeron's control address is the next one), {@code port=},
     *             {@code subscribers=}.
     * @return the multicast channel: min flow control that waits for every subscriber before the first message
     *         (as rmcast's minimum group size), datagrams of up to 4096 bytes (the soft device's MTU).
     */
    static String channel(final Map<String, String> args)
    {
        return "aeron:udp?endpoint=" + args.get("group") + ":" + args.get("port") + "|interface=127.0.0.1|fc=min,g:/" +
            args.get("subscribers") + "|mtu=4096";
    }

    Aeron aeron()
    {
        return aeron;
    }

    /** @return datagrams the loss generator dropped. */
    long injected()
    {
        return injected.get();
    }

    long counter(final SystemCounterDescriptor descriptor)
    {
        return driver.context().systemCounters().get(descriptor).get();
    }

    @Override
    public void close()
    {
        aeron.close();
        driver.close();
    }
}
