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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static io.rdma4j.soft.cm.CmTestSupport.expect;
import static io.rdma4j.soft.cm.CmTestSupport.expectAndAck;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A process that is told to end (SIGTERM, as Ctrl-C's SIGINT) while connected says goodbye as the kernel's
 * rdma_cm does for a dying process: its peer sees DISCONNECTED at once, not after its own timeouts.
 */
@Timeout(60)
class CmFarewellTest
{
    private final ConnectionManager cm = ConnectionManager.withSystemClock();
    private Process client;

    @AfterEach
    void stop()
    {
        if (client != null)
        {
            client.destroyForcibly();
        }
        cm.stop();
    }

    @Test
    void shouldDisconnectThePeerOfAProcessEndedBySigterm() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.UDP))
        {
            fabric.device(1);
            final EventChannel channel = SoftEventChannel.create(cm);
            final CmId listener = channel.createId("listener", PortSpace.TCP);
            listener.bindAddr(fabric.socketAddress(1, 0));
            listener.listen(4);

            final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            client = new ProcessBuilder(java, "-Drdma4j.soft.shm=off", "-Drdma4j.stat=false",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                CmFarewellPeer.class.getName(), fabric.address(1).getHostAddress(),
                Integer.toString(listener.localAddress().getPort()), fabric.address(2).getHostAddress())
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

            client.destroy();
            client.waitFor(30, TimeUnit.SECONDS);
            final CmEvent disconnected = expect(channel, CmEventType.DISCONNECTED);
            assertEquals(0, disconnected.status(), "the peer's DREQ, not a timeout");
            disconnected.ack();

            server.destroyQp();
            cq.close();
            server.close();
            listener.close();
            channel.close();
        }
    }
}
