package io.rdma4j.bench;

import io.rdma4j.rdmacore.provider.NativeProvider;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.GlobalRoute;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
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
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The native provider's data path through FFM: one UD message from a QP to itself on the first native device
 * (rxe0 in the lab), a receive posted, the send posted, both completions polled, all through the provider's
 * functions in the context's ops table. Run with {@code -prof gc} to see the allocation per operation (the
 * target is 0 B/op). Needs a native device: without one the setup fails with the provider's reason.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class NativePostPollBenchmark
{
    private static final int QKEY = 0x44444444;

    @Param({"64"})
    int size;

    private Arena arena;
    private Context context;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private QueuePair qp;
    private MemoryRegion mr;
    private AddressHandle ah;
    private final SendWr send = new SendWr();
    private final RecvWr recv = new RecvWr();
    private final WorkCompletion[] wcs = WorkCompletion.array(4);

    @Setup
    public void setUp()
    {
        final NativeProvider provider = new NativeProvider();
        final List<Device> devices = provider.devices();
        if (devices.isEmpty())
        {
            throw new IllegalStateException("no native RDMA device: " + provider.unavailableReason());
        }
        context = devices.getFirst().open();
        arena = Arena.ofShared();
        pd = context.allocPd();
        cq = context.createCq(64, null, 0);
        qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(16, 16)));
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(QKEY));
        qp.modify(new QpAttr().state(QpState.RTR));
        qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
        mr = pd.regMr(arena.allocate(8192, 64), EnumSet.of(AccessFlag.LOCAL_WRITE));
        final int gidIndex = ipv4GidIndex(context);
        final Gid gid = context.queryGid(1, gidIndex);
        ah = pd.createAh(new AhAttr(new GlobalRoute(gid, 0, gidIndex, 1, 0), 0, 0, 0, 0, 1));
        send.wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sge(mr, 0, size).ud(ah, qp.qpNum(), QKEY);
        recv.wrId(2).sge(mr, 4096, 40 + size);
    }

    private static int ipv4GidIndex(final Context context)
    {
        for (int index = 0; index < context.queryPort(1).gidTblLen(); index++)
        {
            final Gid gid = context.queryGid(1, index);
            if (gid.isIpv4Mapped())
            {
                return index;
            }
        }
        throw new IllegalStateException("port 1 has no IPv4 GID");
    }

    @Benchmark
    public int postSendRecvAndPoll()
    {
        qp.postRecv(recv);
        qp.postSend(send);
        int completions = 0;
        while (completions < 2)
        {
            completions += cq.poll(wcs);
        }
        return completions;
    }

    @TearDown
    public void tearDown()
    {
        ah.close();
        qp.close();
        mr.close();
        cq.close();
        pd.close();
        context.close();
        arena.close();
    }
}
