package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.soft.stat.StatFileTest;
import io.rdma4j.stat.StatReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.regex.Pattern;

import static io.rdma4j.soft.cm.CmTestSupport.expectAndAck;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The connection manager's ids in the stat files of their devices, as a reader in another process sees them
 * ({@link StatReader} on the mapped file): an id appears once it is on a device, its line follows its state, and
 * it disappears when destroyed. The describe section is rewritten once a second, so each step waits for it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CmStatTest
{
    /**
     * @return the device's describe lines once one matches, read anew from the file until then (30 s at most).
     */
    private static List<String> awaitLines(final Path dir, final InetAddress device,
        final Predicate<List<String>> wanted) throws IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<String> lines = List.of();
        while (System.nanoTime() < deadline)
        {
            lines = StatReader.readAll(dir).stream()
                .filter(s -> s.address().equals(device.getHostAddress()))
                .flatMap(s -> s.describe().lines())
                .filter(l -> l.startsWith("cm id "))
                .toList();
            if (wanted.test(lines))
            {
                return lines;
            }
            // the publisher's period is a second: poll the file a few times within it
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        throw new AssertionError("the stat file of " + device.getHostAddress() + " never showed it; last: " + lines);
    }

    /**
     * Wait until the device's file shows the counter at {@code atLeast} or more (30 s at most).
     */
    private static void awaitCounter(final Path dir, final InetAddress device, final String counter,
        final long atLeast) throws IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<Long> values = List.of();
        while (System.nanoTime() < deadline)
        {
            values = StatReader.readAll(dir).stream()
                .filter(s -> s.address().equals(device.getHostAddress()))
                .map(s -> s.byName().get(counter))
                .toList();
            if (values.size() == 1 && values.getFirst() != null && values.getFirst() >= atLeast)
            {
                return;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        throw new AssertionError("the stat file of " + device.getHostAddress() + " never showed " + counter + " >= " +
            atLeast + "; last: " + values);
    }

    private static Predicate<List<String>> anyMatching(final String regex)
    {
        final Pattern pattern = Pattern.compile(regex);
        return lines -> lines.stream().anyMatch(l -> pattern.matcher(l).matches());
    }

    private static String hostPort(final InetSocketAddress address)
    {
        return Pattern.quote(address.getAddress().getHostAddress() + ":" + address.getPort());
    }

    @Test
    void shouldShowAnIdFromListenThroughConnectionToDestruction(@TempDir final Path dir) throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY).settings(StatFileTest.statIn(dir));
            CmPeers peers = new CmPeers(fabric, ConnectionManager.withSystemClock(CmTesting.SHARED)))
        {
            final InetAddress server = fabric.address(CmPeers.SERVER);
            final InetAddress client = fabric.address(CmPeers.CLIENT);
            final String listening = "cm id \\d+ TCP LISTEN local " + hostPort(peers.listener.localAddress()) +
                " backlog 0/10";
            awaitLines(dir, server, anyMatching(listening));

            final CmId[] pair = peers.connect();
            final InetSocketAddress serverEnd = pair[1].localAddress();
            final InetSocketAddress clientEnd = pair[0].localAddress();
            final String serverLine = "cm id (\\d+) TCP CONNECT \\(ESTABLISHED\\) local " + hostPort(serverEnd) +
                " remote " + hostPort(clientEnd) + String.format(" qp 0x%06x", pair[1].qp().qpNum());
            final String clientLine = "cm id (\\d+) TCP CONNECT \\(ESTABLISHED\\) local " + hostPort(clientEnd) +
                " remote " + hostPort(serverEnd) + String.format(" qp 0x%06x", pair[0].qp().qpNum());
            final List<String> onServer = awaitLines(dir, server, anyMatching(serverLine));
            assertTrue(onServer.stream().anyMatch(l -> l.matches(listening)), "the listener stays: " + onServer);
            awaitLines(dir, client, anyMatching(clientLine));
            // the connection manager counts in the file of the device each MAD came to: the server handled the
            // REQ and the RTU, the client the REP
            awaitCounter(dir, server, "cm_handled", 2);
            awaitCounter(dir, client, "cm_handled", 1);

            // the server's side goes: a DREQ takes the client's connection to DISCONNECT
            peers.close(pair[1]);
            final List<String> afterServerLeft = awaitLines(dir, server, lines -> lines.stream()
                .noneMatch(l -> l.contains(" remote " + clientEnd.getAddress().getHostAddress() + ":")));
            assertTrue(afterServerLeft.stream().anyMatch(l -> l.matches(listening)), afterServerLeft.toString());
            expectAndAck(peers.clientChannel, CmEventType.DISCONNECTED);
            awaitLines(dir, client, anyMatching("cm id \\d+ TCP DISCONNECT \\((DREQ_RCVD|TIMEWAIT)\\) local " +
                hostPort(clientEnd) + " remote " + hostPort(serverEnd) + " qp 0x[0-9a-f]{6}"));

            peers.close(pair[0]);
            final List<String> afterClientLeft = awaitLines(dir, client, List::isEmpty);
            assertFalse(afterClientLeft.stream().anyMatch(l -> l.contains("TCP")), afterClientLeft.toString());
        }
    }

    @Test
    void shouldShowTheGroupsAUdpIdJoined(@TempDir final Path dir) throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY).settings(StatFileTest.statIn(dir));
            EventChannel channel = SoftEventChannel.create(ConnectionManager.withSystemClock(CmTesting.SHARED)))
        {
            fabric.device(1);
            final CmId id = channel.createId(null, PortSpace.UDP);
            id.bindAddr(fabric.socketAddress(1, 0));
            final String bound = "cm id \\d+ UDP ADDR_BOUND local " + hostPort(id.localAddress());
            awaitLines(dir, fabric.address(1), anyMatching(bound));

            final InetSocketAddress group = CmFabric.group();
            id.joinMulticast(group, null);
            expectAndAck(channel, CmEventType.MULTICAST_JOIN);
            awaitLines(dir, fabric.address(1), anyMatching(bound + " groups " +
                Pattern.quote(group.getAddress().getHostAddress())));

            id.leaveMulticast(group);
            awaitLines(dir, fabric.address(1), anyMatching(bound));
            id.close();
            awaitLines(dir, fabric.address(1), List::isEmpty);
        }
    }
}
