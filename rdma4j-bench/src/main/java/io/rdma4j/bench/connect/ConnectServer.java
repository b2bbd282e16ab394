package io.rdma4j.bench.connect;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The listener of {@link FirstConnect}'s rows: a connection manager id ({@code cm}) that accepts every request
 * with a QP of its own, or a TCP socket ({@code tcp}) that accepts every connection; both hold what they accepted
 * until the process is killed. Prints {@code listening PORT} once it listens; the port above it is left without a
 * listener, for the refused rows.
 */
public final class ConnectServer
{
    private ConnectServer()
    {
    }

    /**
     * @param args {@code cm|tcp HOST}.
     * @throws Exception if it cannot listen.
     */
    public static void main(final String[] args) throws Exception
    {
        final InetAddress host = InetAddress.getByName(args[1]);
        if (args[0].equals("tcp"))
        {
            tcp(host);
        }
        else
        {
            cm(host);
        }
    }

    private static void tcp(final InetAddress host) throws Exception
    {
        try (ServerSocketChannel server = ServerSocketChannel.open())
        {
            server.bind(new InetSocketAddress(host, 0));
            listening(((InetSocketAddress)server.getLocalAddress()).getPort());
            final List<SocketChannel> held = new ArrayList<>();
            while (true)
            {
                held.add(server.accept());
            }
        }
    }

    private static void cm(final InetAddress host) throws Exception
    {
        final EventChannel channel = RdmaCm.createEventChannel();
        final CmId listener = channel.createId(null, PortSpace.TCP);
        listener.bindAddr(new InetSocketAddress(host, 0));
        listener.listen(16);
        final ProtectionDomain pd = listener.verbs().allocPd();
        final CompletionQueue cq = listener.verbs().createCq(64, null, 0);
        listening(listener.localAddress().getPort());
        while (true)
        {
            final CmEvent event = channel.getEvent(1, TimeUnit.HOURS);
            if (event == null)
            {
                continue;
            }
            final CmEventType type = event.type();
            final CmId id = event.id();
            event.ack();
            if (type == CmEventType.CONNECT_REQUEST)
            {
                id.createQp(pd, QpInitAttr.of(QpType.RC, cq, QpCap.of(1, 1)));
                id.accept(null);
            }
        }
    }

    private static void listening(final int port)
    {
        System.out.println("listening " + port);
        System.out.flush();
    }
}
