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
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WrOpcode;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * The UD message rate of one QP pair, one thread, both devices in polling mode (the polling thread
 * does all the work, so this is the path's cost per message with no hand-off between threads): a
 * burst of {@link #BURST} 64-byte SENDs, posted as one chain of WRs with only the last signalled,
 * to a receiver with the burst's receives posted as one chain, then both CQs drained. Its score is
 * messages per microsecond; compare with {@link UdpBaselineBenchmark}'s datagram rate.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class UdStreamBenchmark
{
    /** Messages per invocation: posted as one chain, received as one. */
    static final int BURST = 64;

    @Param({"64"})
    int size;

    /** true: through the receiver's shared-memory inbox; false: UDP on loopback. */
    @Param({"true", "false"})
    boolean sameHost;

    /** The socket under both devices' links: NIO (a system call per datagram) or Linux (batched). */
    @Param({"nio", "linux"})
    String socket;

    private QueuePair sender;
    private QueuePair receiver;
    private CompletionQueue senderCq;
    private CompletionQueue receiverCq;
    private final SendWr[] sends = new SendWr[BURST];
    private final RecvWr[] recvs = new RecvWr[BURST];
    private final WorkCompletion[] wcs = WorkCompletion.array(BURST);

    @Setup
    public void setUp() throws Exception
    {
        final Context senderContext = UdBenchSetup.device("stream0", "127.0.9.3", true, socket, sameHost);
        final Context receiverContext = UdBenchSetup.device("stream1", "127.0.9.4", true, socket, sameHost);
        final ProtectionDomain spd = senderContext.allocPd();
        final ProtectionDomain rpd = receiverContext.allocPd();
        senderCq = senderContext.createCq(4 * BURST, null, 0);
        receiverCq = receiverContext.createCq(4 * BURST, null, 0);
        sender = UdBenchSetup.udQp(spd, senderCq, 4 * BURST);
        receiver = UdBenchSetup.udQp(rpd, receiverCq, 4 * BURST);
        final MemorySegment sbuf = Arena.global().allocate(4096);
        final MemorySegment rbuf = Arena.global().allocate((long)BURST * (size + 40));
        final MemoryRegion smr = spd.regMr(sbuf, EnumSet.of(AccessFlag.LOCAL_WRITE));
        final MemoryRegion rmr = rpd.regMr(rbuf, EnumSet.of(AccessFlag.LOCAL_WRITE));
        final AddressHandle ah = spd.createAh(AhAttr.global(receiverContext.queryGid(1, 0), 64));
        for (int i = 0; i < BURST; i++)
        {
            sends[i] = new SendWr().wrId(i).opcode(WrOpcode.SEND)
                .sendFlags(i == BURST - 1 ? SendFlags.SIGNALED : 0)
                .sge(smr, 0, size).ud(ah, receiver.qpNum(), UdBenchSetup.QKEY);
            recvs[i] = new RecvWr().wrId(i).sge(rmr, (long)i * (size + 40), size + 40);
        }
        for (int i = 0; i + 1 < BURST; i++)
        {
            sends[i].next(sends[i + 1]);
            recvs[i].next(recvs[i + 1]);
        }
    }



    @Benchmark
    @OperationsPerInvocation(BURST)
    public int burst()
    {
        receiver.postRecv(recvs[0]);
        sender.postSend(sends[0]);
        int received = 0;
        int sent = 0;
        int bytes = 0;
        while (received < BURST || sent == 0)
        {
            final int n = receiverCq.poll(wcs);
            for (int i = 0; i < n; i++)
            {
                if (wcs[i].status() != WcStatus.SUCCESS)
                {
                    throw new IllegalStateException("receive failed: " + wcs[i].status());
                }
                bytes += wcs[i].byteLen();
            }
            received += n;
            // the sender's poll drives its device too (polling mode): sends still queued go out here
            sent += senderCq.poll(wcs);
        }
        return bytes + sent;
    }
}
