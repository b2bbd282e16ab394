package io.rdma4j.soft;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.link.SameHostLink;
import io.rdma4j.soft.transport.TransportQp;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.LogRecord;

import static io.rdma4j.soft.LocalPeerForgeryTest.PEER_PSN;
import static io.rdma4j.soft.LocalPeerForgeryTest.VICTIM_PSN;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 41, finding 6: the same-host rule ({@code drop_local_peer_by_udp}) held only while the one inbox directory
 * was usable, and {@code /dev/shm/rdma4j-USER} is a name any local user can make first. Every device refused the
 * squatted directory and spoke UDP, spoofed RC and UC WRITEs from the peer's address landed, and the real peer's
 * next WRITE, at the PSN the forgery had taken, completed with SUCCESS while the responder dropped it as a
 * duplicate. Now the devices go on to the next place ({@code ~/.rdma4j/shm-BOOT} by default), look for peers in
 * every place, and say (and count) each directory they refuse and each local peer they cannot protect.
 * <p>
 * The squatted place is made in a directory of the test's, sticky and open to all as {@code /dev/shm} is: by this
 * user but open to others (no root needed), or, where the test runs as root, handed to {@code nobody}.
 */
@Timeout(60)
class SameHostSquatTest
{
    private static final int LENGTH = 64;
    private static final int NOBODY = 65534;

    /** How the first place was made first by someone else. */
    enum Squat
    {
        /** This user's, but {@code rwxrwxrwx}: anyone may put files in it. */
        OPEN_TO_OTHERS,
        /** Another user's ({@code nobody}), {@code rwx------}: needs root to make here. */
        ANOTHER_USER
    }

    private final int subnet = TestNet.nextSubnet();
    private final List<Context> contexts = new ArrayList<>();
    private int host;

    @ParameterizedTest
    @CsvSource({"OPEN_TO_OTHERS, RC", "OPEN_TO_OTHERS, UC", "ANOTHER_USER, RC", "ANOTHER_USER, UC"})
    void shouldDropSpoofedWritesAndDeliverThePeersWhenTheFirstPlaceIsSquatted(final Squat squat, final QpType type,
        @TempDir final Path tmp) throws Exception
    {
        final Path squatted = squatted(shared(tmp), squat);
        final Path second = tmp.resolve("home").resolve(".rdma4j").resolve("shm-boot");
        try (CapturedLog log = new CapturedLog(SameHostSquatTest.class);
            DatagramChannel impostor = DatagramChannel.open())
        {
            final SoftSettings settings = places(squatted, second);
            final RcEndpoint victim = new RcEndpoint(open(settings), type, 1 << 16, 16);
            final RcEndpoint peer = new RcEndpoint(open(settings), type, 1 << 16, 16);
            for (final RcEndpoint side : new RcEndpoint[] {victim, peer})
            {
                assertEquals(1, side.counter(SoftCounter.SHM_DIR_REFUSED), "the squatted place, counted");
                assertTrue(inboxOf(side).startsWith(second), "the inbox is in the second place: " + inboxOf(side));
            }
            final String owner = squat == Squat.ANOTHER_USER ? "user " + NOBODY + ", rwx------" : "rwxrwxrwx";
            assertTrue(warnings(log).stream().anyMatch(w -> w.contains(squatted.toString()) && w.contains(owner) &&
                w.contains(second.toString())), "a warning naming the place, its owner and mode: " + warnings(log));
            RcConnectSettings.defaults().psns(VICTIM_PSN, PEER_PSN).connect(victim, peer);
            assertTrue(((TransportQp)victim.qp).peerOnSameHostPath(), "the victim reaches its peer by an inbox");

            final byte[] before = RcFixtures.bytes(victim.buffer, 0, LENGTH);
            LocalPeerForgeryTest.send(impostor, LocalPeerForgeryTest.forged(impostor, type == QpType.RC ?
                Opcode.RC_RDMA_WRITE_ONLY : Opcode.UC_RDMA_WRITE_ONLY,
                victim, peer).va(victim.mr.address()).rkey(victim.mr.rkey()).dmaLength(LENGTH), LENGTH, victim);
            LocalPeerForgeryTest.awaitLocalPeerDrop(victim, 1);
            assertArrayEquals(before, RcFixtures.bytes(victim.buffer, 0, LENGTH), "the spoofed WRITE landed");

            // the real peer's WRITE at the PSN the forgery tried to take: placed, not dropped as a duplicate
            RcFixtures.fill(peer.buffer, 0, LENGTH, 11);
            peer.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sge(peer.mr, 0, LENGTH).rdma(victim.mr.address(), victim.mr.rkey()));
            if (type == QpType.RC)
            {
                assertEquals(WcStatus.SUCCESS, RcFixtures.one(peer.pollSend(1, 10_000), "peer's write").status());
            }
            RcFixtures.sendAndReceive(peer, victim, 1024);
            assertArrayEquals(RcFixtures.bytes(peer.buffer, 0, LENGTH), RcFixtures.bytes(victim.buffer, 0, LENGTH),
                "the real peer's WRITE was lost");
            assertEquals(0, victim.counter(SoftCounter.DUPLICATE_REQUEST), "a real request taken for a duplicate");
            assertEquals(0, victim.counter(SoftCounter.SHM_UNPROTECTED_PEER));
        }
        finally
        {
            close();
        }
    }

    /**
     * The squatter gives the first place up after one device chose the second, and the next device makes the
     * first: each has its inbox in another place, and each still finds the other's.
     */
    @Test
    void shouldFindAPeerWhoseInboxIsInAnotherPlace(@TempDir final Path tmp) throws Exception
    {
        final Path first = squatted(shared(tmp), Squat.OPEN_TO_OTHERS);
        final Path second = tmp.resolve("home").resolve("shm");
        try (CapturedLog quiet = new CapturedLog(SameHostSquatTest.class))
        {
            final SoftSettings settings = places(first, second);
            final RcEndpoint a = new RcEndpoint(open(settings), QpType.RC, 1 << 16, 16);
            Files.delete(first);
            final RcEndpoint b = new RcEndpoint(open(settings), QpType.RC, 1 << 16, 16);
            assertTrue(inboxOf(a).startsWith(second), inboxOf(a).toString());
            assertTrue(inboxOf(b).startsWith(first), inboxOf(b).toString());
            assertEquals(0, b.counter(SoftCounter.SHM_DIR_REFUSED), "the first place was b's own to make");

            RcConnectSettings.defaults().psns(VICTIM_PSN, PEER_PSN).connect(a, b);
            assertTrue(((TransportQp)a.qp).peerOnSameHostPath(), "a finds b's inbox in the first place");
            assertTrue(((TransportQp)b.qp).peerOnSameHostPath(), "b finds a's inbox in the second place");
            RcFixtures.sendAndReceive(a, b, 1024);
            RcFixtures.sendAndReceive(b, a, 2048);
            assertTrue(a.counter(SoftCounter.SHM_RCVD_PKTS) > 0 && b.counter(SoftCounter.SHM_RCVD_PKTS) > 0,
                "both ways through the inboxes");
            assertEquals(0, a.counter(SoftCounter.UDP_RCVD_PKTS) + b.counter(SoftCounter.UDP_RCVD_PKTS),
                "nothing by UDP");
        }
        finally
        {
            close();
        }
    }

    /**
     * Every place refused: the devices say so, naming each place and its owner, count each, and at the connection
     * say (once a device) and count that the peer, an address of this host, is reached by UDP, where any local user
     * can speak for it (docs/decisions.md: what is left then, as on rxe).
     */
    @Test
    void shouldSayWhenNoPlaceIsLeftAndCountEachLocalPeerItCannotProtect(@TempDir final Path tmp) throws Exception
    {
        final Path shared = shared(tmp);
        final Path first = squatted(shared, Squat.OPEN_TO_OTHERS);
        final Path second = Files.createDirectory(shared.resolve("second"));
        Files.setPosixFilePermissions(second, PosixFilePermissions.fromString("rwxrwxrwx"));
        try (CapturedLog log = new CapturedLog(SameHostSquatTest.class))
        {
            final SoftSettings settings = places(first, second);
            final RcEndpoint victim = new RcEndpoint(open(settings), QpType.RC, 1 << 16, 16);
            final RcEndpoint peer = new RcEndpoint(open(settings), QpType.RC, 1 << 16, 16);
            assertEquals(2, victim.counter(SoftCounter.SHM_DIR_REFUSED));
            assertFalse(victim.engine().link().sameHost(), "no inbox");
            for (final Path place : List.of(first, second))
            {
                assertTrue(warnings(log).stream().anyMatch(w -> w.contains(place + " (user ") &&
                    w.contains("rwxrwxrwx")), place + ": " + warnings(log));
            }
            assertTrue(warnings(log).stream().anyMatch(w -> w.contains("no same-host path for " +
                victim.engine().address().getHostAddress())), warnings(log).toString());

            RcConnectSettings.defaults().psns(VICTIM_PSN, PEER_PSN).connect(victim, peer);
            assertEquals(1, victim.counter(SoftCounter.SHM_UNPROTECTED_PEER));
            assertEquals(1, peer.counter(SoftCounter.SHM_UNPROTECTED_PEER));
            final String peerAddress = peer.engine().address().getHostAddress();
            assertTrue(warnings(log).stream().anyMatch(w -> w.contains(peerAddress + " is an address of this host") &&
                w.contains("no place of")), warnings(log).toString());
        }
        finally
        {
            close();
        }
    }

    /**
     * Two users' devices, as far as the files go: each has its own place, neither can see the other's, so their
     * connection is on UDP, and each says so.
     */
    @Test
    void shouldCountAPeerOfThisHostThatHasNoInboxOfThisUser(@TempDir final Path tmp) throws Exception
    {
        try (CapturedLog log = new CapturedLog(SameHostSquatTest.class))
        {
            final RcEndpoint ann = new RcEndpoint(open(places(tmp.resolve("ann"))), QpType.UC, 1 << 16, 16);
            final RcEndpoint bob = new RcEndpoint(open(places(tmp.resolve("bob"))), QpType.UC, 1 << 16, 16);
            assertTrue(ann.engine().link().sameHost() && bob.engine().link().sameHost(), "each has its inbox");
            RcConnectSettings.defaults().psns(VICTIM_PSN, PEER_PSN).connect(ann, bob);
            assertFalse(((TransportQp)ann.qp).peerOnSameHostPath());
            assertEquals(1, ann.counter(SoftCounter.SHM_UNPROTECTED_PEER));
            assertEquals(1, bob.counter(SoftCounter.SHM_UNPROTECTED_PEER));
            assertTrue(warnings(log).stream().anyMatch(w -> w.contains(bob.engine().address().getHostAddress() +
                " is an address of this host") && w.contains(tmp.resolve("ann").toString())), warnings(log).toString());
            RcFixtures.sendAndReceive(ann, bob, 1024);
        }
        finally
        {
            close();
        }
    }

    /** A directory every user may make entries in, sticky: as {@code /dev/shm} and {@code /tmp} are. */
    private static Path shared(final Path tmp) throws IOException
    {
        final Path shared = Files.createDirectory(tmp.resolve("shm"));
        Files.setAttribute(shared, "unix:mode", 01777);
        return shared;
    }

    /** The first place, made by the squatter before any device of this user. */
    private static Path squatted(final Path shared, final Squat squat) throws IOException
    {
        final Path squatted = Files.createDirectory(shared.resolve("rdma4j-" + System.getProperty("user.name")));
        if (squat == Squat.OPEN_TO_OTHERS)
        {
            Files.setPosixFilePermissions(squatted, PosixFilePermissions.fromString("rwxrwxrwx"));
        }
        else
        {
            assumeTrue("root".equals(System.getProperty("user.name")), "handing a directory to nobody needs root");
            Files.setPosixFilePermissions(squatted, PosixFilePermissions.fromString("rwx------"));
            Files.setAttribute(squatted, "unix:uid", NOBODY, LinkOption.NOFOLLOW_LINKS);
        }
        return squatted;
    }

    private static SoftSettings places(final Path... places)
    {
        return SoftSettings.fromSystem().toBuilder().sameHost(true).shmDirectories(List.of(places)).build();
    }

    private Context open(final SoftSettings settings)
    {
        final InetAddress address = TestNet.address(subnet, ++host);
        final Context context = SoftDevice.builder("squat" + subnet + "_" + host, address).settings(settings)
            .logger(System.getLogger(SameHostSquatTest.class.getName())).build().open();
        contexts.add(context);
        return context;
    }

    private static Path inboxOf(final RcEndpoint side)
    {
        final Path inbox = ((SameHostLink)side.engine().link()).inboxPath();
        assertNotNull(inbox, "no inbox");
        return inbox;
    }

    private static List<String> warnings(final CapturedLog log)
    {
        return log.records().stream().map(LogRecord::getMessage).toList();
    }

    private void close()
    {
        for (final Context context : contexts)
        {
            ((SoftDevice)context.device()).shutdown();
        }
        contexts.clear();
    }
}
