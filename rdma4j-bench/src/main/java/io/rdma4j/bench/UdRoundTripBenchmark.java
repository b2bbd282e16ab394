package io.rdma4j.bench;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * One UD message from one software device to another over UDP on loopback (or, with {@code sameHost},
 * through the receiver's shared-memory inbox), posted and polled
 * on the benchmark thread: the send (build, ICRC, sendto), the receive (ICRC check, scatter,
 * CQE) on the receiver's progress thread or, in polling mode, on the polling thread itself, and
 * both polls. Compare with {@link UdpBaselineBenchmark},
 * the same datagram size over a bare DatagramChannel, run in the same JMH invocation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class UdRoundTripBenchmark
{
    @Param({"64", "1024"})
    int size;

    /** false: the receiver's progress thread receives; true: polling mode, the polling thread does. */
    @Param({"false", "true"})
    boolean pollsInline;

    /** true: the devices exchange the datagram through each other's shared-memory inbox; false: UDP only. */
    @Param({"false", "true"})
    boolean sameHost;

    /** The socket under both devices' links: NIO, or Linux through FFM (batched system calls). */
    @Param({"nio", "linux"})
    String socket;

    private Context senderContext;
    private Context receiverContext;
    private QueuePair sender;
    private QueuePair receiver;
    private CompletionQueue senderCq;
    private CompletionQueue receiverCq;
    private final SendWr send = new SendWr();
    private final RecvWr recv = new RecvWr();
    private final WorkCompletion[] wcs = WorkCompletion.array(4);

    @Setup
    public void setUp() throws Exception
    {
        senderContext = UdBenchSetup.device("bench0", "127.0.9.1", pollsInline, socket, sameHost);
        receiverContext = UdBenchSetup.device("bench1", "127.0.9.2", pollsInline, socket, sameHost);
        final ProtectionDomain spd = senderContext.allocPd();
        final ProtectionDomain rpd = receiverContext.allocPd();
        senderCq = senderContext.createCq(64, null, 0);
        receiverCq = receiverContext.createCq(64, null, 0);
        sender = UdBenchSetup.udQp(spd, senderCq, 16);
        receiver = UdBenchSetup.udQp(rpd, receiverCq, 16);
        final MemorySegment sbuf = Arena.global().allocate(4096);
        final MemorySegment rbuf = Arena.global().allocate(4096);
        final MemoryRegion smr = spd.regMr(sbuf, EnumSet.of(AccessFlag.LOCAL_WRITE));
        final MemoryRegion rmr = rpd.regMr(rbuf, EnumSet.of(AccessFlag.LOCAL_WRITE));
        final AddressHandle ah = spd.createAh(AhAttr.global(receiverContext.queryGid(1, 0), 64));
        send.wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sge(smr, 0, size)
            .ud(ah, receiver.qpNum(), UdBenchSetup.QKEY);
        recv.wrId(2).sge(rmr, 0, 4096);
    }



    @Benchmark
    public int sendAndReceive()
    {
        receiver.postRecv(recv);
        sender.postSend(send);
        int n;
        while ((n = senderCq.poll(wcs)) == 0)
        {
            Thread.onSpinWait();
        }
        while (receiverCq.poll(wcs) == 0)
        {
            Thread.onSpinWait();
        }
        return n + wcs[0].byteLen();
    }

    @TearDown
    public void tearDown()
    {
        // the engines' threads are daemons; the fork ends with the run
    }
}
