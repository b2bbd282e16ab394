package io.rdma4j.tools.rmcast;

import io.rdma4j.rmcast.FlowControl;
import io.rdma4j.rmcast.MulticastConfig;
import io.rdma4j.rmcast.Publication;
import io.rdma4j.rmcast.PublicationListener;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code rdma4j rmcast_pub}: publish messages to a reliable multicast group and report, once a second, the
 * rate, the members and the back pressure.
 */
@Command(name = "rmcast_pub", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Reliable multicast publisher (io.rdma4j.rmcast): rates, members and back pressure each second.")
public final class RmcastPubCommand implements Callable<Integer>
{
    @Option(names = "-b", paramLabel = "bind_address", required = true, description = "this device's address")
    private String bindAddress;

    @Option(names = "-m", paramLabel = "group", required = true, description = "the multicast group")
    private String group;

    @Option(names = "-n", paramLabel = "messages", defaultValue = "1000000",
        description = "messages to send, 0 for no end (default: ${DEFAULT-VALUE})")
    private long count;

    @Option(names = "-s", paramLabel = "size", defaultValue = "64", description = "message size (default: ${DEFAULT-VALUE})")
    private int size;

    @Option(names = "--min-group", paramLabel = "members", defaultValue = "1",
        description = "members to wait for before the first send (default: ${DEFAULT-VALUE})")
    private int minGroup;

    @Option(names = "--flow", paramLabel = "min|max", defaultValue = "MIN",
        description = "flow control: MIN never overruns the slowest member, MAX keeps the fastest's pace")
    private FlowControl flow;

    @Option(names = "--window", paramLabel = "slots", defaultValue = "8192",
        description = "retransmit window, fragments (power of two; default: ${DEFAULT-VALUE})")
    private int window;

    @Option(names = "--offers-per-flush", paramLabel = "offers", defaultValue = "1",
        description = "offers between polls of the send queue: 1 sends each at once, more batch (default: ${DEFAULT-VALUE})")
    private int offersPerFlush;

    @Option(names = "--linger", paramLabel = "seconds", defaultValue = "5",
        description = "after the last message, serve repairs until the members leave or this long (default: ${DEFAULT-VALUE})")
    private int linger;

    @Option(names = "--liveness", paramLabel = "ms", defaultValue = "2000",
        description = "how long a silent member or publisher is still taken as alive, ms (the member and publisher "
            + "timeouts; raise it where a peer may stall, as an emulated guest does; default: ${DEFAULT-VALUE})")
    private long livenessMs;

    @Override
    public Integer call() throws Exception
    {
        final MulticastConfig config = new MulticastConfig()
            .memberTimeoutNs(TimeUnit.MILLISECONDS.toNanos(livenessMs))
            .publisherTimeoutNs(TimeUnit.MILLISECONDS.toNanos(livenessMs))
            .windowSlots(window).minGroupSize(minGroup).flowControl(flow)
            .maxMessageLength(Math.max(size, 64 * 1024)).offersPerFlush(offersPerFlush);
        final PublicationListener dropped = new PublicationListener()
        {
            @Override
            public void onMemberDropped(final InetSocketAddress member, final long position, final long head)
            {
                System.out.printf("rmcast_pub: member %s DROPPED at %d, head %d (more than a window behind)%n",
                    member, position, head);
            }
        };
        try (Publication publication = Publication.open(config, InetAddress.getByName(bindAddress),
            new InetSocketAddress(InetAddress.getByName(group), 0), dropped); Arena arena = Arena.ofConfined())
        {
            System.out.printf("rmcast_pub: session %08x to %s, repair listener %s, %d-byte messages, window %d, %s " +
                "flow control, waiting for %d members%n", publication.sessionId(), group, publication.repairAddress(),
                size, window, flow, minGroup);
            final MemorySegment message = arena.allocate(Math.max(size, 8));
            final RateLine rates = new RateLine();
            long nextReport = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            long sent = 0;
            long bytes = 0;
            while (count == 0 || sent < count)
            {
                if (size >= 8)
                {
                    message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, sent);
                }
                if (publication.offer(message, 0, size) > 0)
                {
                    sent++;
                    bytes += size;
                }
                else
                {
                    publication.doWork();
                }
                final long now = System.nanoTime();
                if (now >= nextReport)
                {
                    nextReport = now + TimeUnit.SECONDS.toNanos(1);
                    report(publication, rates);
                }
            }
            report(publication, rates);
            final long lingerUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(linger);
            while (publication.memberCount() > 0 && System.nanoTime() < lingerUntil)
            {
                if (publication.doWork() == 0)
                {
                    Thread.onSpinWait();
                }
            }
            System.out.printf("rmcast_pub: sent %d messages, %d bytes; %s%n", sent, bytes, publication.counters());
            return 0;
        }
    }

    private static void report(final Publication publication, final RateLine rates)
    {
        final double seconds = rates.advance(publication.counters());
        System.out.printf("pub: %,.0f msg/s, %,.2f MB/s, %,.0f datagrams/s, members %d (dropped %d), " +
            "back-pressured %,.0f/s, position %d%n", rates.delta("messages_sent") / seconds,
            rates.delta("bytes_sent") / seconds / 1e6, rates.delta("fragments_sent") / seconds,
            publication.memberCount(), rates.total("members_dropped"), rates.delta("back_pressured") / seconds,
            publication.position());
    }
}
