package io.rdma4j.soft.link;

import static io.rdma4j.soft.link.LinkTesting.address;
import static io.rdma4j.soft.link.LinkTesting.datagram;
import static io.rdma4j.soft.link.LinkTesting.freePort;
import static io.rdma4j.soft.link.LinkTesting.randomGroup;
import static io.rdma4j.soft.link.LinkTesting.receiveWithin;
import static io.rdma4j.soft.link.LinkTesting.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdma4j.testing.TestNet;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two processes on one host, each with its own loopback address, share a group on one port.
 */
// A separate thread, because a read of the peer's output does not yield to an interrupt.
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class UdpLinkProcessTest
{
    @Test
    void shouldDeliverAGroupDatagramToAMemberInEachProcess() throws Exception
    {
        final int port = freePort();
        final InetAddress group = randomGroup();
        final InetAddress senderAddress = TestNet.hostAddress(2);
        final InetAddress localMemberAddress = TestNet.hostAddress(3);
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process peer = new ProcessBuilder(
            java, "-cp", System.getProperty("java.class.path"), UdpLinkPeer.class.getName(),
            TestNet.host(6), Integer.toString(port), group.getHostAddress())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();

        try (BufferedReader lines = new BufferedReader(
            new InputStreamReader(peer.getInputStream(), StandardCharsets.US_ASCII));
            IpLink sender = TestLinks.open(senderAddress, port);
            IpLink localMember = TestLinks.open(localMemberAddress, port))
        {
            assertEquals("READY", lines.readLine());
            localMember.joinGroup(group);

            assertTrue(sender.send(datagram("to-both"), group, 1));

            final ByteBuffer buffer = ByteBuffer.allocateDirect(2048);
            final DatagramInfo info = new DatagramInfo();
            assertTrue(receiveWithin(localMember, buffer, info, 5_000));
            assertEquals("to-both", text(buffer));
            assertEquals("to-both from " + senderAddress.getHostAddress() + " to " + group.getHostAddress(),
                lines.readLine());
        }
        finally
        {
            peer.getOutputStream().close();
            if (!peer.waitFor(10, TimeUnit.SECONDS))
            {
                peer.destroyForcibly();
            }
        }
    }
}
