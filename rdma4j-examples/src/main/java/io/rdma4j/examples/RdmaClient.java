package io.rdma4j.examples;

import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * The active side of the same tutorial ("part 3: the client"): resolve the server's address and route,
 * build a QP, pre-post a receive, connect, send a greeting once established, and disconnect when both
 * the greeting and the server's have completed.
 * <p>
 * Usage: {@code RdmaClient SERVER PORT [LOCAL_ADDRESS]}. Exits 0 when both messages went through.
 */
public final class RdmaClient
{
    private static final int BUFFER_SIZE = 1024;
    private static final int TIMEOUT_MS = 500;

    public static void main(final String[] args) throws Exception
    {
        final InetSocketAddress server = new InetSocketAddress(InetAddress.getByName(args[0]),
            Integer.parseInt(args[1]));
        final InetSocketAddress local = args.length > 2 ? new InetSocketAddress(InetAddress.getByName(args[2]), 0) : null;

        try (EventChannel channel = RdmaCm.createEventChannel(); Arena arena = Arena.ofShared())
        {
            final CmId id = channel.createId(null, PortSpace.TCP);
            id.resolveAddr(local, server, TIMEOUT_MS);
            channel.expect(CmEventType.ADDR_RESOLVED, 5, TimeUnit.SECONDS).ack();

            // the id now has its device: build the QP and register the buffers on it
            final ProtectionDomain pd = id.verbs().allocPd();
            final CompletionQueue cq = id.verbs().createCq(10, null, 0);
            id.createQp(pd, QpInitAttr.of(QpType.RC, cq, QpCap.of(10, 10)));
            final MemorySegment recv = arena.allocate(BUFFER_SIZE);
            final MemorySegment send = arena.allocate(BUFFER_SIZE);
            final MemoryRegion recvMr = pd.regMr(recv, EnumSet.of(AccessFlag.LOCAL_WRITE));
            final MemoryRegion sendMr = pd.regMr(send, EnumSet.noneOf(AccessFlag.class));
            id.qp().postRecv(new RecvWr().wrId(1).sge(recvMr, 0, BUFFER_SIZE));

            id.resolveRoute(TIMEOUT_MS);
            channel.expect(CmEventType.ROUTE_RESOLVED, 5, TimeUnit.SECONDS).ack();
            id.connect(null);
            channel.expect(CmEventType.ESTABLISHED, 30, TimeUnit.SECONDS).ack();
            System.out.println("connected.");

            final String message = "message from active/client side with pid " + ProcessHandle.current().pid();
            send.setString(0, message, StandardCharsets.US_ASCII);
            id.qp().postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(sendMr, 0, message.length() + 1));

            // two completions: our send and the server's message
            final WorkCompletion[] wcs = WorkCompletion.array(2);
            for (int done = 0; done < 2; )
            {
                final int n = cq.poll(wcs);
                for (int i = 0; i < n; i++, done++)
                {
                    if (!wcs[i].isSuccess())
                    {
                        throw new IllegalStateException("completion failed: " + wcs[i]);
                    }
                    System.out.println(wcs[i].opcode() == WcOpcode.RECV ?
                        "received message: " + recv.getString(0, StandardCharsets.US_ASCII) :
                        "send completed successfully.");
                }
                if (n == 0)
                {
                    Thread.onSpinWait();
                }
            }

            id.disconnect();
            channel.expect(CmEventType.DISCONNECTED, 30, TimeUnit.SECONDS).ack();
            System.out.println("disconnected.");
            id.destroyQp();
            recvMr.close();
            sendMr.close();
            cq.close();
            pd.close();
            id.close();
        }
    }
}
