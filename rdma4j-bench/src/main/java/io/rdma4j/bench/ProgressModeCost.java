package io.rdma4j.bench;

import io.rdma4j.soft.SoftDevice;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.HdrHistogram.Histogram;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * What each progress mode costs: a 64-byte UD ping-pong between two soft devices of this JVM, 10^5 round
 * trips (after 2 x 10^4 unmeasured), in each mode, over UDP and over the same-host path; it prints the
 * round trip's p50 and p99 and the CPU time the whole process spent per round trip (both sides, every
 * thread: {@code getProcessCpuTime}).
 * <ul>
 *     <li>{@code polling}: polling mode, the application threads busy-poll their CQs and receive
 *     themselves;</li>
 *     <li>{@code thread}: the progress threads receive, the application threads busy-poll their CQs;</li>
 *     <li>{@code events}: the progress threads receive, the application threads sleep on a completion
 *     channel (blocking).</li>
 * </ul>
 * Run: {@code java -cp "rdma4j-bench/target/classes:rdma4j-bench/target/lib/*"
 * io.rdma4j.bench.ProgressModeCost [round trips]}.
 */
public final class ProgressModeCost
{
    private static final int SIZE = 64;
    private static final int WARMUP = 20_000;

    private ProgressModeCost()
    {
    }

    /**
     * @param args the measured round trips (default 100000), the paths ({@code shm,udp}) and the modes
     *             ({@code polling,thread,events}) to run.
     * @throws Exception if a run fails.
     */
    public static void main(final String[] args) throws Exception
    {
        final int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int host = 1;
        System.out.printf("%-8s %-7s %10s %10s %14s %10s%n", "path", "mode", "p50 us", "p99 us", "cpu us/rt",
            "cores");
        final String paths = args.length > 1 ? args[1] : "shm,udp";
        final String modes = args.length > 2 ? args[2] : "polling,thread,events";
        for (final String path : paths.split(","))
        {
            for (final String mode : modes.split(","))
            {
                run(path.equals("shm"), mode, n, host);
                host += 2;
            }
        }
        System.exit(0);
    }

    private static void run(final boolean sameHost, final String mode, final int n, final int host) throws Exception
    {
        final boolean polling = mode.equals("polling");
        final boolean events = mode.equals("events");
        final Side a = new Side(address(host), sameHost, polling, events);
        final Side b = new Side(address(host + 1), sameHost, polling, events);
        a.connect(b);
        b.connect(a);
        final Thread echo = Thread.ofPlatform().daemon().start(() ->
        {
            try
            {
                while (!Thread.currentThread().isInterrupted())
                {
                    b.awaitRecv();
                    b.send();
                }
            }
            catch (final InterruptedException ex)
            {
                // done
            }
        });
        final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean)ManagementFactory.getOperatingSystemMXBean();
        long cpuStart = 0;
        long wallStart = 0;
        for (int i = 0; i < WARMUP + n; i++)
        {
            if (i == WARMUP)
            {
                cpuStart = os.getProcessCpuTime();
                wallStart = System.nanoTime();
            }
            final long start = System.nanoTime();
            a.send();
            a.awaitRecv();
            if (i >= WARMUP)
            {
                histogram.recordValue(System.nanoTime() - start);
            }
        }
        final long cpu = os.getProcessCpuTime() - cpuStart;
        final long wall = System.nanoTime() - wallStart;
        echo.interrupt();
        System.out.printf("%-8s %-7s %10.2f %10.2f %14.2f %10.2f%n", sameHost ? "shm" : "udp", mode,
            histogram.getValueAtPercentile(50) / 1000.0, histogram.getValueAtPercentile(99) / 1000.0,
            cpu / 1000.0 / n, (double)cpu / wall);
        if (Boolean.getBoolean("cost.verbose"))
        {
            System.out.println("  over 10 ms: " + (histogram.getTotalCount() -
                histogram.getCountBetweenValues(0, 10_000_000)) + ", a: " +
                ((io.rdma4j.soft.verbs.SoftContext)a.context).counters() + "\n  b: " +
                ((io.rdma4j.soft.verbs.SoftContext)b.context).counters());
        }
    }

    private static InetAddress address(final int host) throws Exception
    {
        return InetAddress.getByAddress(new byte[] {127, 0, 10, (byte)host});
    }

    /** One device with a UD QP that keeps receives posted and sends 64 bytes to its peer, unsignaled. */
    private static final class Side
    {
        private final Context context;
        private final ProtectionDomain pd;
        private final CompletionQueue cq;
        private final QueuePair qp;
        private final MemoryRegion mr;
        private final boolean events;
        private final SendWr send = new SendWr();
        private final RecvWr recv = new RecvWr();
        private final WorkCompletion[] wcs = WorkCompletion.array(8);

        Side(final InetAddress address, final boolean sameHost, final boolean polling, final boolean events)
        {
            this.events = events;
            context = SoftDevice.builder("cost" + address.getAddress()[3], address).pollsInline(polling)
                .sameHost(sameHost).build().open();
            pd = context.allocPd();
            final CompletionChannel channel = events ? context.createCompChannel() : null;
            cq = context.createCq(256, channel, 0);
            qp = UdBenchSetup.udQp(pd, cq, 64);
            final MemorySegment buffer = Arena.global().allocate(8192);
            mr = pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE));
            recv.wrId(2).sge(mr, 4096, 4096);
            for (int i = 0; i < 32; i++)
            {
                qp.postRecv(recv);
            }
        }

        void connect(final Side peer)
        {
            final AddressHandle ah = pd.createAh(AhAttr.global(peer.context.queryGid(1, 0), 64));
            send.wrId(1).opcode(WrOpcode.SEND).sendFlags(0).sge(mr, 0, SIZE)
                .ud(ah, peer.qp.qpNum(), UdBenchSetup.QKEY);
        }

        void send()
        {
            qp.postSend(send);
        }

        void awaitRecv() throws InterruptedException
        {
            while (true)
            {
                final int k = events ? cq.poll(wcs, -1, TimeUnit.NANOSECONDS) : cq.poll(wcs);
                for (int i = 0; i < k; i++)
                {
                    if (wcs[i].opcode() == WcOpcode.RECV)
                    {
                        qp.postRecv(recv);
                        return;
                    }
                }
                if (k == 0)
                {
                    Thread.onSpinWait();
                }
            }
        }
    }
}
