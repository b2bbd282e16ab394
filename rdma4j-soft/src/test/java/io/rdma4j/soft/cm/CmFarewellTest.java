package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.soft.SoftDevice;
import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.link.TestLinks;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static io.rdma4j.soft.cm.CmTestSupport.expect;
import static io.rdma4j.soft.cm.CmTestSupport.expectAndAck;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The end of a peer's process ends its connections, as the kernel's rdma_cm ends a dying process's: a process
 * told to end (SIGTERM, as Ctrl-C's SIGINT) sends its DREQs on the way out, and a same-host process killed
 * outright (SIGKILL), which can send nothing, is found dead through its inbox's pid within a second or two.
 */
@Timeout(60)
class CmFarewellTest
{
    private static final int SUBNET = TestNet.nextSubnet();
    private final ConnectionManager cm = ConnectionManager.withSystemClock(CmTesting.SHARED);
    private SoftDevice device;
    private Process client;

    @AfterEach
    void stop()
    {
        if (client != null)
        {
            client.destroyForcibly();
        }
        if (device != null)
        {
            CmTesting.DEVICES.unregister(device);
        }
        cm.stop();
    }

    @Test
    void shouldDisconnectThePeerOfAProcessEndedBySigterm() throws Exception
    {
        final Connected connected = connectAChild(1, false);
        client.destroy();
        client.waitFor(30, TimeUnit.SECONDS);
        final CmEvent disconnected = expect(connected.channel, CmEventType.DISCONNECTED);
        assertEquals(0, disconnected.status(), "the peer's DREQ, not a timeout");
        disconnected.ack();
        connected.close();
    }

    @Test
    void shouldDisconnectTheSameHostPeerOfAProcessKilledOutright() throws Exception
    {
        final Connected connected = connectAChild(3, true);
        client.destroyForcibly();
        client.waitFor(30, TimeUnit.SECONDS);
        final CmEvent disconnected = expect(connected.channel, CmEventType.DISCONNECTED);
        assertEquals(ConnectionManager.ECONNRESET, disconnected.status(), "found dead, no DREQ");
        disconnected.ack();
        connected.close();
    }

    /** A server here on host {@code host} of the subnet, a client process on the next host, connected. */
    private Connected connectAChild(final int host, final boolean sameHost) throws Exception
    {
        final InetAddress serverAddress = TestNet.address(SUBNET, host);
        device = SoftDevice.builder("farewell" + host, serverAddress).registry(CmTesting.DEVICES).sameHost(sameHost)
            .build();
        CmTesting.DEVICES.register(device);
        final EventChannel channel = SoftEventChannel.create(cm);
        final CmId listener = channel.createId("listener", PortSpace.TCP);
        listener.bindAddr(new InetSocketAddress(serverAddress, 0));
        listener.listen(4);

        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        client = new ProcessBuilder(java, "-D" + SoftSettings.SHM.property() + "=" + (sameHost ? "auto" : "off"),
            "-D" + SoftSettings.SHM_DIR.property() + "=" + TestLinks.shmDirectory(),
            "-D" + SoftSettings.STAT.property() + "=false", "--enable-native-access=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"),
            CmFarewellPeer.class.getName(), serverAddress.getHostAddress(),
            Integer.toString(listener.localAddress().getPort()), TestNet.address(SUBNET, host + 1).getHostAddress())
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();

        final CmEvent request = expect(channel, CmEventType.CONNECT_REQUEST);
        final CmId server = request.id();
        request.ack();
        final CompletionQueue cq = server.verbs().createCq(16, null, 0);
        server.createQp(null, QpInitAttr.of(QpType.RC, cq, new QpCap(8, 8, 1, 1, 0)));
        server.accept(null);
        expectAndAck(channel, CmEventType.ESTABLISHED);
        final BufferedReader out = new BufferedReader(new InputStreamReader(client.getInputStream(),
            StandardCharsets.US_ASCII));
        assertEquals("ESTABLISHED", out.readLine());
        return new Connected(channel, listener, server, cq);
    }

    private record Connected(EventChannel channel, CmId listener, CmId server, CompletionQueue cq)
    {
        void close()
        {
            server.destroyQp();
            cq.close();
            server.close();
            listener.close();
            channel.close();
        }
    }
}
