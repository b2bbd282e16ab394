package io.rdma4j.bench.compare.mcast;

import io.rdma4j.rmcast.MulticastConfig;
import io.rdma4j.rmcast.Publication;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * rdma4j's reliable multicast publisher ({@link Publication}) with the defaults but for: the members it waits
 * for ({@code subscribers=}), the longest message (64 KiB, or the plan's size if more), and the offers packed into
 * one datagram ({@code flush=}).
 */
final class RmcastSource implements McastSource
{
    private final Publication publication;
    private final MemorySegment message;
    private final DeviceDrops drops;

    RmcastSource(final Map<String, String> args, final ByteBuffer message) throws InterruptedException,
        java.net.UnknownHostException
    {
        this.message = MemorySegment.ofBuffer(message);
        final MulticastConfig config = new MulticastConfig()
            .minGroupSize(Integer.parseInt(args.get("subscribers")))
            .maxMessageLength(RmcastSink.maxMessageLength(message.capacity()))
            .offersPerFlush(Integer.parseInt(args.get("flush")));
        publication = Publication.open(config, InetAddress.getByName(args.get("local")),
            new InetSocketAddress(InetAddress.getByName(args.get("group")), 0));
        drops = new DeviceDrops(args.get("local"));
    }

    @Override
    public boolean offer(final int length)
    {
        final long result = publication.offer(message, 0, length);
        if (result == Publication.CLOSED)
        {
            throw new IllegalStateException("the publication is closed");
        }
        return result > 0;
    }

    @Override
    public int doWork()
    {
        return publication.doWork();
    }

    @Override
    public void flush()
    {
        publication.doWork();
    }

    @Override
    public String counters()
    {
        final Map<String, Long> c = publication.counters();
        return "injected=" + drops.injected() + " members=" + publication.memberCount() + " datagrams=" + c.get("fragments_sent") + " back-pressured=" +
            c.get("back_pressured") + " members-dropped=" + c.get("members_dropped") + " members-timed-out=" +
            c.get("members_timed_out");
    }

    @Override
    public void close()
    {
        drops.close();
        publication.close();
    }
}
