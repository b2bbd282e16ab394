package io.rdma4j.soft.link;

import java.nio.ByteBuffer;

/**
 * {@link LinkTesting}'s waiting receive for tests of other packages (the Linux link's).
 */
public final class LinkTestingAccess
{
    private LinkTestingAccess()
    {
    }

    /**
     * @return true if a datagram arrived within the time.
     */
    public static boolean receiveWithin(
        final Link link, final ByteBuffer buffer, final DatagramInfo info, final long timeoutMillis)
    {
        return LinkTesting.receiveWithin(link, buffer, info, timeoutMillis);
    }
}
