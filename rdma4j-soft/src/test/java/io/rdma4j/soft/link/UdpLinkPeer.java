package io.rdma4j.soft.link;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A device in another process for {@link UdpLinkProcessTest}: opens a link, joins a group, says
 * READY, then echoes every datagram it receives as a line until its standard input closes.
 * Arguments: address, port, group.
 */
final class UdpLinkPeer
{
    private UdpLinkPeer()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        try (IpLink link = TestLinks.open(LinkTesting.address(args[0]), Integer.parseInt(args[1])))
        {
            link.joinGroup(LinkTesting.address(args[2]));
            System.out.println("READY");
            System.out.flush();

            // The parent closes our input to stop us, so a lost parent never leaves us running.
            final Thread stopper = Thread.ofPlatform().daemon().start(() ->
            {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII)))
                {
                    while (null != in.readLine())
                    {
                        // Nothing is sent on input: this only waits for its end.
                    }
                }
                catch (final Exception ignore)
                {
                    // Input gone either way.
                }
                System.exit(0);
            });

            final ByteBuffer buffer = ByteBuffer.allocateDirect(2048);
            final DatagramInfo info = new DatagramInfo();
            while (stopper.isAlive())
            {
                if (link.receive(buffer, info))
                {
                    System.out.println(LinkTesting.text(buffer) + " from " + info.source.getHostAddress() +
                        " to " + info.destination.getHostAddress());
                    System.out.flush();
                }
                else
                {
                    link.awaitReadable(100_000_000L);
                }
            }
        }
    }
}
