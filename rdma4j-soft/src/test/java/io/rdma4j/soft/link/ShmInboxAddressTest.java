package io.rdma4j.soft.link;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * An inbox names its device's address in full, IPv4 or IPv6, and a sender takes the file only for that very
 * address: a file that names another (a renamed IPv4 inbox, another IPv6 address) is refused as
 * {@link ShmInbox.Refusal#FORMAT}.
 */
@Timeout(60)
class ShmInboxAddressTest
{
    private static final int PORT = 4791;

    @TempDir
    Path temporary;

    @Test
    void anIpv6InboxIsTakenForItsAddressOnly() throws IOException
    {
        final ShmDirectory directory = ShmDirectory.open(temporary.resolve("inboxes"));
        final Path path = directory.inbox("::1", PORT);
        final ShmInbox inbox = ShmInbox.create(path, InetAddress.ofLiteral("::1"), PORT, ShmInbox.MIN_CAPACITY);
        try
        {
            assertEquals(ShmInbox.Refusal.NONE, verdict(directory, path, "::1", PORT));
            assertEquals(ShmInbox.Refusal.FORMAT, verdict(directory, path, "::2", PORT));
            assertEquals(ShmInbox.Refusal.FORMAT, verdict(directory, path, "::1:0:0:0:1", PORT));
            assertEquals(ShmInbox.Refusal.FORMAT, verdict(directory, path, "127.0.0.1", PORT));
            assertEquals(ShmInbox.Refusal.FORMAT, verdict(directory, path, "::1", PORT + 1));
        }
        finally
        {
            inbox.unlink();
        }
    }

    @Test
    void anIpv4InboxKeepsItsLayoutAndIsTakenForItsAddressOnly() throws IOException
    {
        final ShmDirectory directory = ShmDirectory.open(temporary.resolve("inboxes"));
        final Path path = directory.inbox("127.0.0.1", PORT);
        final ShmInbox inbox = ShmInbox.create(path, InetAddress.ofLiteral("127.0.0.1"), PORT,
            ShmInbox.MIN_CAPACITY);
        try
        {
            assertEquals(ShmInbox.Refusal.NONE, verdict(directory, path, "127.0.0.1", PORT));
            assertEquals(ShmInbox.Refusal.FORMAT, verdict(directory, path, "127.0.0.2", PORT));
            // ::7f00:1 holds 127.0.0.1's four bytes in its last ones: still another address
            assertEquals(ShmInbox.Refusal.FORMAT, verdict(directory, path, "::7f00:1", PORT));
        }
        finally
        {
            inbox.unlink();
        }
    }

    private static ShmInbox.Refusal verdict(final ShmDirectory directory, final Path path, final String address,
        final int port)
    {
        final ShmInbox.Refusal[] refusal = new ShmInbox.Refusal[1];
        final ShmInbox opened = ShmInbox.open(path, InetAddress.ofLiteral(address), port, directory.uid(), refusal);
        if (refusal[0] == ShmInbox.Refusal.NONE)
        {
            assertNotNull(opened);
        }
        else
        {
            assertNull(opened);
        }
        return refusal[0];
    }
}
