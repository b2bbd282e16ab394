package io.rdma4j.soft.provider;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.soft.SoftDevice;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.ProgressMode;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Two provider instances made in code, with different settings, in one JVM: each instance's devices run with its
 * own settings, each has its own connection manager, an RC connection runs between them, and closing one shuts
 * down its devices alone, leaving the other serving a third.
 */
class SideBySideProvidersTest
{
    private static final int SUBNET = TestNet.nextSubnet();

    private static SoftProviderContext context(final int host, final ProgressMode mode)
    {
        return new SoftProviderContext().addresses(List.of(TestNet.address(SUBNET, host))).progress(mode)
            .sameHost(false).stat(false);
    }

    @Test
    @Timeout(60)
    void twoInstancesWithTheirOwnSettingsConnectAndOneOutlivesTheOther() throws Exception
    {
        try (SoftProvider server = SoftProvider.launch(context(1, ProgressMode.POLLING));
            EventChannel serverChannel = server.createEventChannel())
        {
            final SoftProvider client = SoftProvider.launch(context(2, ProgressMode.THREAD));
            assertDevice(server, 1, ProgressMode.POLLING);
            final SoftDevice clientDevice = assertDevice(client, 2, ProgressMode.THREAD);

            final CmId listener = serverChannel.createId("listener", PortSpace.TCP);
            listener.bindAddr(new InetSocketAddress(TestNet.address(SUBNET, 1), 0));
            listener.listen(4);
            final int port = listener.localAddress().getPort();

            final Connection first = Connection.connect(client, serverChannel, 2, port);
            assertEquals(TestNet.address(SUBNET, 2), ((SoftDevice)first.clientId.verbs().device()).address());
            first.close();
            client.close();

            // the client's instance is gone: its device shut down, and it lists none
            assertNull(clientDevice.engineIfOpen());
            final RdmaException closed = assertThrows(RdmaException.class, client::devices);
            assertEquals(Errno.ENODEV, closed.errno());
            // the server's still listens, and serves another instance, in waiting mode
            try (SoftProvider third = SoftProvider.launch(context(3, ProgressMode.WAITING)))
            {
                assertDevice(third, 3, ProgressMode.WAITING);
                Connection.connect(third, serverChannel, 3, port).close();
            }
            assertDevice(server, 1, ProgressMode.POLLING);
            listener.close();
        }
    }

    /** The instance's one device is on its address and runs in its mode. */
    private static SoftDevice assertDevice(final SoftProvider provider, final int host, final ProgressMode mode)
    {
        final List<Device> devices = provider.devices();
        assertEquals(1, devices.size(), devices.toString());
        final SoftDevice device = (SoftDevice)devices.getFirst();
        assertEquals(TestNet.address(SUBNET, host), device.address());
        try (Context context = device.open())
        {
            assertEquals(mode, context.progressMode());
        }
        return device;
    }

    /** An RC connection from a client instance's own channel to the listener's. */
    private record Connection(EventChannel clientChannel, CmId clientId, CompletionQueue clientCq,
        EventChannel serverChannel, CmId serverId, CompletionQueue serverCq)
    {
        static Connection connect(final SoftProvider client, final EventChannel serverChannel, final int host,
            final int port) throws InterruptedException
        {
            final EventChannel channel = client.createEventChannel();
            final CmId id = channel.createId("client", PortSpace.TCP);
            final InetAddress from = TestNet.address(SUBNET, host);
            id.resolveAddr(new InetSocketAddress(from, 0), new InetSocketAddress(TestNet.address(SUBNET, 1), port),
                2000);
            expect(channel, CmEventType.ADDR_RESOLVED).ack();
            id.resolveRoute(2000);
            expect(channel, CmEventType.ROUTE_RESOLVED).ack();
            final CompletionQueue cq = id.verbs().createCq(16, null, 0);
            id.createQp(null, QpInitAttr.of(QpType.RC, cq, new QpCap(8, 8, 1, 1, 0)));
            id.connect(null);

            final CmEvent request = expect(serverChannel, CmEventType.CONNECT_REQUEST);
            final CmId server = request.id();
            request.ack();
            final CompletionQueue serverCq = server.verbs().createCq(16, null, 0);
            server.createQp(null, QpInitAttr.of(QpType.RC, serverCq, new QpCap(8, 8, 1, 1, 0)));
            server.accept(null);
            expect(serverChannel, CmEventType.ESTABLISHED).ack();
            expect(channel, CmEventType.ESTABLISHED).ack();
            return new Connection(channel, id, cq, serverChannel, server, serverCq);
        }

        void close() throws InterruptedException
        {
            clientId.disconnect();
            expect(clientChannel, CmEventType.DISCONNECTED).ack();
            expect(serverChannel, CmEventType.DISCONNECTED).ack();
            for (final CmId id : List.of(clientId, serverId))
            {
                id.destroyQp();
            }
            clientCq.close();
            serverCq.close();
            clientId.close();
            serverId.close();
            clientChannel.close();
        }
    }

    private static CmEvent expect(final EventChannel channel, final CmEventType type) throws InterruptedException
    {
        final CmEvent event = channel.getEvent(10, TimeUnit.SECONDS);
        assertNotNull(event, "no " + type + " within 10 s");
        assertEquals(type, event.type(), () -> "status " + event.status());
        return event;
    }
}
