package io.rdma4j.tools;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * mckey -l: its QPs are created with BLOCK_SELF_MCAST_LB, so they do not get back what they send,
 * and every other member still gets every message. (That the sending QP itself gets nothing is
 * shown at the API level, in rdma4j-soft's SelfMulticastLoopbackTest: mckey's sender posts no
 * receives, so it cannot show it.) Addresses 127.44.3.x and group 239.255.44.30 are this class's own.
 */
class McKeyBlockLoopbackTest
{
    private static final int COUNT = 20;
    private static final String GROUP = TestNet.group(44, 30);

    private final List<RoleProcess> children = new ArrayList<>();

    @AfterEach
    void killLeftovers()
    {
        children.forEach(RoleProcess::destroy);
    }

    private RoleProcess start(final String role, final String address, final String... extra) throws IOException
    {
        final List<String> args = new ArrayList<>(List.of("mckey", "-m", GROUP, "-b", address, "-l",
            "-C", Integer.toString(COUNT), "--delay-ms", "0", "--timeout", "30"));
        args.addAll(List.of(extra));
        final RoleProcess child = RoleProcess.start(role, address, args, System.out::println);
        children.add(child);
        return child;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSendAndReceiveWithoutLoopback() throws Exception
    {
        final RoleProcess receiver = start("receiver", TestNet.host(3, 1));
        assertTrue(receiver.joined().get(60, TimeUnit.SECONDS), "the receiver joined: " + receiver.lines());

        final RoleProcess sender = start("sender", TestNet.host(3, 2), "-s");

        assertEquals(0, sender.await(60, TimeUnit.SECONDS), "sender status; output: " + sender.lines());
        assertEquals(0, receiver.await(60, TimeUnit.SECONDS), "receiver status; output: " + receiver.lines());
        assertEquals(COUNT, receiver.summaryValue("unique"), "another process still gets every message");
        assertEquals(0, receiver.summaryValue("missing"));
        assertTrue(receiver.lines().contains("data transfers complete"));
    }
}
