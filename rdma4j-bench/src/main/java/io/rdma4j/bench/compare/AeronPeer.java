package io.rdma4j.bench.compare;

import io.aeron.Aeron;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.driver.status.SenderPos;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import org.HdrHistogram.Histogram;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * One process of an Aeron workload of the comparison harness, with its own embedded media driver
 * (as each rdma4j process has its own device): the ping-pong, the stream and the multicast fan-out
 * that {@code rdma4j perf send_lat}, {@code send_bw} and {@code send_lat -M} run, over Aeron UDP
 * channels on loopback.
 * <p>
 * Idle strategies: {@code busy} gives the driver a busy-spinning shared thread and polls with
 * {@link BusySpinIdleStrategy} between empty polls, yielding after a while as rdma4j's busy poll
 * does; {@code blocking} gives both a back-off that ends in parking, the nearest Aeron has to
 * sleeping in the kernel (it has no blocking receive); {@code invoker} runs the driver's agents and the
 * client's conductor on the application's own thread ({@link ThreadingMode#INVOKER}), one busy thread a
 * process, which is what rdma4j's polling mode is: on two cores it is Aeron's fastest shape, since the
 * other two would put four busy threads on them.
 * <p>
 * Arguments are {@code key=value}: role (ping, pong, stream-send, stream-receive, fanout-send,
 * fanout-receive), mode (busy, blocking), local, remote, port, size, n, warmup, receivers, group,
 * index. The initiating role prints one result line.
 */
public final class AeronPeer
{
    private static final int STREAM_ID = 1001;
    private static final byte PROBE = 0;
    private static final byte DATA = 1;
    private static final byte DONE = 2;
    private static final long HIGHEST_NS = TimeUnit.SECONDS.toNanos(60);
    private static final long STALL_NS = TimeUnit.SECONDS.toNanos(30);
    private static final int SPIN_POLLS = 2000;

    private final Map<String, String> args;
    private final boolean busy;
    private final boolean invoker;
    /** In invoker mode: the driver's agents and the client's conductor, run from every poll. */
    private AgentInvoker driverAgents;
    private AgentInvoker conductor;
    private final int size;
    private final int n;
    private final int warmup;
    private final UnsafeBuffer out;
    private int idle;
    private long lastProgress = System.nanoTime();
    private int received;
    private long receivedSeq = -1;
    private byte receivedType = -1;
    /** Answering sessions (one per receiver) and the highest ping each answered: arrays, not boxes. */
    private final int[] replySessions = new int[256];
    private final long[] replySeqs = new long[256];
    private int replyCount;
    /** The same for the probes before a fan-out starts. */
    private final Map<Integer, Long> probes = new HashMap<>();

    private AeronPeer(final Map<String, String> args)
    {
        this.args = args;
        final String mode = args.getOrDefault("mode", "busy");
        this.invoker = "invoker".equals(mode);
        this.busy = invoker || "busy".equals(mode);
        this.size = Math.max(Integer.parseInt(args.getOrDefault("size", "64")), Long.BYTES + 1);
        this.n = Integer.parseInt(args.getOrDefault("n", "1000"));
        this.warmup = Integer.parseInt(args.getOrDefault("warmup", "100"));
        this.out = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
    }

    /**
     * @param argv {@code key=value} arguments.
     * @throws Exception if the run fails; the process then exits non-zero.
     */
    public static void main(final String[] argv) throws Exception
    {
        final Map<String, String> args = new HashMap<>();
        for (final String arg : argv)
        {
            final int eq = arg.indexOf('=');
            if (eq < 1)
            {
                throw new IllegalArgumentException("expected key=value, got '" + arg + "'");
            }
            args.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        new AeronPeer(args).run();
        System.exit(0);
    }

    private String arg(final String key)
    {
        final String value = args.get(key);
        if (value == null)
        {
            throw new IllegalArgumentException("missing " + key + "=");
        }
        return value;
    }

    private static String unicast(final String address, final int port)
    {
        return "aeron:udp?endpoint=" + address + ":" + port;
    }

    private String multicast()
    {
        // Aeron wants an odd last octet for the data address (the control address is the next one up).
        return "aeron:udp?endpoint=" + arg("group") + ":" + (Integer.parseInt(arg("port")) + 2) +
            "|interface=127.0.0.1|fc=min";
    }

    private IdleStrategy driverIdle()
    {
        return busy ? new YieldingIdleStrategy() : new BackoffIdleStrategy(10, 20, 1_000, 100_000);
    }

    private void run() throws Exception
    {
        final File dir = new File(System.getProperty("java.io.tmpdir"), "rdma4j-aeron-" + UUID.randomUUID());
        final MediaDriver.Context driverContext = new MediaDriver.Context()
            .aeronDirectoryName(dir.getAbsolutePath())
            .threadingMode(invoker ? ThreadingMode.INVOKER : ThreadingMode.SHARED)
            .sharedIdleStrategy(driverIdle())
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .termBufferSparseFile(true)
            .publicationTermBufferLength(4 << 20)
            .ipcTermBufferLength(1 << 16);
        try (MediaDriver driver = MediaDriver.launchEmbedded(driverContext);
             Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName())
                 .useConductorAgentInvoker(invoker).driverAgentInvoker(driver.sharedAgentInvoker())))
        {
            if (invoker)
            {
                driverAgents = driver.sharedAgentInvoker();
                conductor = aeron.conductorAgentInvoker();
            }
            final String role = arg("role");
            final int port = Integer.parseInt(arg("port"));
            switch (role)
            {
                case "ping", "stream-send" ->
                {
                    try (Publication pub = aeron.addExclusivePublication(unicast(arg("remote"), port), STREAM_ID);
                         Subscription sub = aeron.addSubscription(unicast(arg("local"), port + 1), STREAM_ID))
                    {
                        awaitConnected(pub, sub, 1);
                        if (role.equals("ping"))
                        {
                            ping(pub, sub, 1, "pingpong");
                        }
                        else
                        {
                            stream(pub, sub);
                        }
                        drain(aeron, pub);
                    }
                }
                case "pong", "stream-receive" ->
                {
                    try (Publication pub = aeron.addExclusivePublication(unicast(arg("remote"), port + 1), STREAM_ID);
                         Subscription sub = aeron.addSubscription(unicast(arg("local"), port), STREAM_ID))
                    {
                        awaitConnected(pub, sub, 1);
                        if (role.equals("pong"))
                        {
                            pong(pub, sub, warmup + n);
                        }
                        else
                        {
                            absorb(pub, sub);
                        }
                        drain(aeron, pub);
                    }
                }
                case "fanout-send" ->
                {
                    final int receivers = Integer.parseInt(arg("receivers"));
                    try (Publication pub = aeron.addExclusivePublication(multicast(), STREAM_ID);
                         Subscription sub = aeron.addSubscription(unicast(arg("local"), port + 1), STREAM_ID))
                    {
                        probe(pub, sub, receivers);
                        ping(pub, sub, receivers, "fanout");
                        drain(aeron, pub);
                    }
                }
                case "fanout-receive" ->
                {
                    try (Publication pub = aeron.addExclusivePublication(unicast(arg("remote"), port + 1), STREAM_ID);
                         Subscription sub = aeron.addSubscription(multicast(), STREAM_ID))
                    {
                        pong(pub, sub, warmup + n);
                        drain(aeron, pub);
                    }
                }
                default -> throw new IllegalArgumentException("unknown role " + role);
            }
        }
    }

    private void idle(final String waitingFor)
    {
        if (invoker)
        {
            // nobody else moves the data: the driver's work is this loop's
            driverAgents.invoke();
            conductor.invoke();
            if ((++idle & 0xFF) == 0 && System.nanoTime() - lastProgress > STALL_NS)
            {
                throw new IllegalStateException("aeron: nothing for 30 s while waiting for " + waitingFor);
            }
            return;
        }
        if (++idle < SPIN_POLLS)
        {
            Thread.onSpinWait();
        }
        else if (busy)
        {
            Thread.yield();
        }
        else
        {
            // Back off to a park, as the driver's strategy in this mode.
            java.util.concurrent.locks.LockSupport.parkNanos(idle < SPIN_POLLS + 100 ? 1_000 : 100_000);
        }
        if ((idle & 0xFF) == 0 && System.nanoTime() - lastProgress > STALL_NS)
        {
            throw new IllegalStateException("aeron: nothing for 30 s while waiting for " + waitingFor);
        }
    }

    /**
     * Before the process closes its driver, wait until the driver's sender has sent everything offered (the last
     * answer, the receiver's count): closing at once raced the driver's thread, and a fan-out receiver's last
     * answer could stay in its term buffer (the back-off driver, parked between duty cycles). In invoker mode the
     * driver moves data only while this thread invokes it, which idle() does.
     */
    private void drain(final Aeron aeron, final Publication pub)
    {
        final CountersReader counters = aeron.countersReader();
        final long offered = pub.position();
        int senderPosition = -1;
        while (senderPosition < 0 || counters.getCounterValue(senderPosition) < offered)
        {
            if (senderPosition < 0)
            {
                senderPosition = senderPositionCounter(counters, pub.registrationId());
            }
            idle("the driver to send what was offered");
        }
    }

    private static int senderPositionCounter(final CountersReader counters, final long registrationId)
    {
        for (int id = 0; id <= counters.maxCounterId(); id++)
        {
            if (counters.getCounterState(id) == CountersReader.RECORD_ALLOCATED &&
                counters.getCounterTypeId(id) == SenderPos.SENDER_POSITION_TYPE_ID &&
                counters.getCounterRegistrationId(id) == registrationId)
            {
                return id;
            }
        }
        return -1;
    }

    private void progressed()
    {
        idle = 0;
        lastProgress = System.nanoTime();
    }

    private void awaitConnected(final Publication pub, final Subscription sub, final int images)
    {
        while (!pub.isConnected() || sub.imageCount() < images)
        {
            idle("the peer to connect");
        }
        progressed();
    }

    private final FragmentHandler onMessage = new FragmentAssembler(this::onMessage);

    private void onMessage(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        received++;
        receivedType = buffer.getByte(offset);
        receivedSeq = buffer.getLong(offset + 1);
        if (receivedType == DATA)
        {
            final int session = header.sessionId();
            int i = 0;
            while (i < replyCount && replySessions[i] != session)
            {
                i++;
            }
            if (i == replyCount && replyCount < replySessions.length)
            {
                replySessions[replyCount++] = session;
                replySeqs[i] = receivedSeq;
            }
            else if (i < replyCount)
            {
                replySeqs[i] = Math.max(replySeqs[i], receivedSeq);
            }
        }
        else if (receivedType == PROBE)
        {
            probes.merge(header.sessionId(), receivedSeq, Math::max);
        }
    }

    private void send(final Publication pub, final byte type, final long seq, final int length)
    {
        out.putByte(0, type);
        out.putLong(1, seq);
        while (pub.offer(out, 0, length) < 0)
        {
            idle("room in the publication");
        }
        progressed();
    }

    private void pollOnce(final Subscription sub, final String waitingFor)
    {
        if (sub.poll(onMessage, 16) > 0)
        {
            progressed();
        }
        else
        {
            idle(waitingFor);
        }
    }

    /**
     * Fan-out: offer probes until every receiver has answered one, so none misses the first ping.
     */
    private void probe(final Publication pub, final Subscription sub, final int receivers)
    {
        long seq = 0;
        while (probes.size() < receivers)
        {
            if (pub.isConnected())
            {
                out.putByte(0, PROBE);
                out.putLong(1, seq++);
                pub.offer(out, 0, Long.BYTES + 1);
            }
            final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10);
            while (System.nanoTime() < until && probes.size() < receivers)
            {
                pollOnce(sub, "every receiver to answer a probe");
            }
        }
    }

    private void ping(final Publication pub, final Subscription sub, final int answers, final String name)
    {
        final Histogram histogram = new Histogram(HIGHEST_NS, 3);
        final int total = warmup + n;
        for (int i = 0; i < total; i++)
        {
            final long start = System.nanoTime();
            send(pub, DATA, i, size);
            while (count(i) < answers)
            {
                pollOnce(sub, "answer " + i);
            }
            if (i >= warmup)
            {
                histogram.recordValue((System.nanoTime() - start) / 2);
            }
        }
        System.out.printf(Locale.ROOT, "aeron %s %dB%s: p50 %.2f us p99 %.2f us p99.9 %.2f us max %.2f us%n", name,
            Integer.parseInt(args.getOrDefault("size", "64")),
            answers > 1 || name.equals("fanout") ? " x" + answers : "",
            histogram.getValueAtPercentile(50) / 1000.0, histogram.getValueAtPercentile(99) / 1000.0,
            histogram.getValueAtPercentile(99.9) / 1000.0, histogram.getMaxValue() / 1000.0);
    }

    private int count(final long seq)
    {
        int answered = 0;
        for (int i = 0; i < replyCount; i++)
        {
            if (replySeqs[i] >= seq)
            {
                answered++;
            }
        }
        return answered;
    }

    private void pong(final Publication pub, final Subscription sub, final int total)
    {
        long answered = -1;
        while (answered < total - 1)
        {
            pollOnce(sub, "ping " + (answered + 1));
            if (receivedType == PROBE)
            {
                send(pub, PROBE, receivedSeq, Long.BYTES + 1);
                receivedType = -1;
            }
            else if (receivedType == DATA && receivedSeq > answered)
            {
                answered = receivedSeq;
                send(pub, DATA, answered, size);
            }
        }
    }

    private void stream(final Publication pub, final Subscription sub)
    {
        long elapsed = 0;
        for (final int count : new int[] {warmup, n})
        {
            final long start = System.nanoTime();
            for (int i = 0; i < count; i++)
            {
                send(pub, DATA, i, size);
            }
            send(pub, DONE, count, Long.BYTES + 1);
            receivedType = -1;
            while (receivedType != DONE)
            {
                pollOnce(sub, "the receiver's count");
            }
            elapsed = System.nanoTime() - start;
        }
        final double seconds = elapsed / 1e9;
        System.out.printf(Locale.ROOT, "aeron stream %dB: %.2f MB/s %.0f msgs/s%n", size,
            (double)size * n / (1 << 20) / seconds, n / seconds);
    }

    private void absorb(final Publication pub, final Subscription sub)
    {
        for (final int count : new int[] {warmup, n})
        {
            received = 0;
            receivedType = -1;
            while (receivedType != DONE)
            {
                pollOnce(sub, "the stream");
            }
            if (received - 1 != count)
            {
                throw new IllegalStateException("aeron stream: " + (received - 1) + " of " + count + " arrived");
            }
            send(pub, DONE, count, Long.BYTES + 1);
        }
    }
}
