package io.rdma4j.bench;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.Mtu;
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
import io.rdma4j.verbs.WcOpcode;
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
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * A ping-pong between two software devices of one JVM over UDP on loopback (or through their same-host
 * inboxes), both sides on the benchmark thread in polling mode, shaped as {@code rdma4j perf send_lat} is: the
 * client posts a signaled SEND and waits for the reply and its own send's completion, the server answers each
 * SEND with one. UD and RC in the same run: an RC exchange adds an ACK each way (on UDP sent in the reply's
 * system call, the reply's GSO run; through an inbox a record of its own) and the requester's and completer's
 * work, and this is where what that costs shows apart from the pair's scheduling. One operation is a round
 * trip: two sends and two receives.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
// six seconds: in its first six the RC round trip read 680, 190, 110, 42, 21 and 19 us (UD 235, 35, 22, 22, 18, 15),
// its longer path compiled later
@Warmup(iterations = 6, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class PingPongBenchmark
{
    private static final int SIZE = 64;
    private static final int DEPTH = 64;

    /** The transport: UD, or RC (with its ACKs). */
    @Param({"UD", "RC"})
    String type;

    /** The socket under both devices' links. */
    @Param({"linux"})
    String socket;

    /**
     * true: the devices exchange packets through each other's shared-memory inbox, the path of two processes
     * of one host, here without a cache line crossing between cores; false: UDP on loopback.
     */
    @Param({"false", "true"})
    boolean sameHost;

    private QueuePair client;
    private QueuePair server;
    private CompletionQueue clientCq;
    private CompletionQueue serverCq;
    private final SendWr ping = new SendWr();
    private final SendWr pong = new SendWr();
    private final RecvWr clientRecv = new RecvWr();
    private final RecvWr serverRecv = new RecvWr();
    private final WorkCompletion[] wcs = WorkCompletion.array(8);

    @Setup
    public void setUp() throws Exception
    {
        final Context clientContext = UdBenchSetup.device("pp0", "127.0.9.5", true, socket, sameHost);
        final Context serverContext = UdBenchSetup.device("pp1", "127.0.9.6", true, socket, sameHost);
        final ProtectionDomain cpd = clientContext.allocPd();
        final ProtectionDomain spd = serverContext.allocPd();
        clientCq = clientContext.createCq(DEPTH, null, 0);
        serverCq = serverContext.createCq(DEPTH, null, 0);
        final boolean rc = "RC".equals(type);
        if (rc)
        {
            client = cpd.createQp(QpInitAttr.of(QpType.RC, clientCq, QpCap.of(DEPTH, DEPTH)));
            server = spd.createQp(QpInitAttr.of(QpType.RC, serverCq, QpCap.of(DEPTH, DEPTH)));
            connect(client, server, serverContext);
            connect(server, client, clientContext);
        }
        else
        {
            client = UdBenchSetup.udQp(cpd, clientCq, DEPTH);
            server = UdBenchSetup.udQp(spd, serverCq, DEPTH);
        }
        final MemoryRegion cmr = cpd.regMr(Arena.global().allocate(4096), EnumSet.of(AccessFlag.LOCAL_WRITE));
        final MemoryRegion smr = spd.regMr(Arena.global().allocate(4096), EnumSet.of(AccessFlag.LOCAL_WRITE));
        ping.wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sge(cmr, 0, SIZE);
        pong.wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sge(smr, 0, SIZE);
        if (!rc)
        {
            ping.ud(cpd.createAh(AhAttr.global(serverContext.queryGid(1, 0), 64)), server.qpNum(), UdBenchSetup.QKEY);
            pong.ud(spd.createAh(AhAttr.global(clientContext.queryGid(1, 0), 64)), client.qpNum(), UdBenchSetup.QKEY);
        }
        // a UD receive buffer takes the 40-byte GRH first
        clientRecv.wrId(3).sge(cmr, 1024, 2048);
        serverRecv.wrId(4).sge(smr, 1024, 2048);
        for (int i = 0; i < DEPTH / 2; i++)
        {
            client.postRecv(clientRecv);
            server.postRecv(serverRecv);
        }
    }

    private static void connect(final QueuePair qp, final QueuePair peer, final Context peerContext)
    {
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(0));
        qp.modify(new QpAttr().state(QpState.RTR).ahAttr(AhAttr.global(peerContext.queryGid(1, 0), 64))
            .pathMtu(Mtu.MTU_4096).destQpNum(peer.qpNum()).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(12));
        qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1));
    }

    @Benchmark
    public int roundTrip()
    {
        client.postSend(ping);
        // polling mode: a post's packets leave at its device's next poll, as in the pair's loop
        clientCq.poll(wcs, 0);
        // the server: the ping's receive, then the pong; its own earlier pong's send completion comes along
        boolean received = false;
        while (!received)
        {
            final int n = serverCq.poll(wcs);
            for (int i = 0; i < n; i++)
            {
                received |= wcs[i].opcode() == WcOpcode.RECV;
            }
        }
        server.postRecv(serverRecv);
        server.postSend(pong);
        serverCq.poll(wcs, 0);
        // the client: the pong and its ping's send completion (for RC, the server's ACK)
        boolean pongIn = false;
        boolean pingDone = false;
        while (!pongIn || !pingDone)
        {
            final int n = clientCq.poll(wcs);
            for (int i = 0; i < n; i++)
            {
                pongIn |= wcs[i].opcode() == WcOpcode.RECV;
                pingDone |= wcs[i].opcode() == WcOpcode.SEND;
            }
        }
        client.postRecv(clientRecv);
        return wcs[0].byteLen();
    }
}
