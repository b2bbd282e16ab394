package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The client of {@link CmFarewellTest}, a process of its own on the process's shared connection manager:
 * connects to {@code args[0]:args[1]} from {@code args[2]}, prints ESTABLISHED, then waits to be killed, with
 * nothing of its own to say goodbye.
 */
public final class CmFarewellPeer
{
    private CmFarewellPeer()
    {
    }

    /**
     * @param args the server's address and port, and this client's address.
     * @throws Exception if the connection is not made.
     */
    public static void main(final String[] args) throws Exception
    {
        final EventChannel channel = SoftEventChannel.create(CmTesting.manager());
        final CmId id = channel.createId("farewell-client", PortSpace.TCP);
        id.resolveAddr(new InetSocketAddress(InetAddress.getByName(args[2]), 0),
            new InetSocketAddress(InetAddress.getByName(args[0]), Integer.parseInt(args[1])), 2000);
        expect(channel, CmEventType.ADDR_RESOLVED);
        id.resolveRoute(2000);
        expect(channel, CmEventType.ROUTE_RESOLVED);
        final CompletionQueue cq = id.verbs().createCq(16, null, 0);
        id.createQp(null, QpInitAttr.of(QpType.RC, cq, new QpCap(8, 8, 1, 1, 0)));
        id.connect(null);
        expect(channel, CmEventType.ESTABLISHED);
        System.out.println("ESTABLISHED");
        System.out.flush();
        Thread.sleep(TimeUnit.MINUTES.toMillis(5));
    }

    private static void expect(final EventChannel channel, final CmEventType type) throws InterruptedException
    {
        final CmEvent event = channel.getEvent(10, TimeUnit.SECONDS);
        if (event == null || event.type() != type)
        {
            throw new IllegalStateException("expected " + type + ", got " + (event == null ? "nothing" :
                event.type() + " status " + event.status()));
        }
        event.ack();
    }
}
