package io.rdma4j.soft.stat;

import io.rdma4j.soft.Fabric;
import io.rdma4j.stat.StatFile;
import io.rdma4j.stat.StatReader;
import io.rdma4j.verbs.Context;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The stat directory against another local user and against other processes of the same one: a directory
 * someone else made or left open is refused, a link planted where a file will be is never followed, the files
 * are the user's alone, the reader opens nothing but the user's regular files, and a file truncated or
 * replaced under a running device costs the publishing, not the device.
 */
class StatDirectoryTest
{
    private static final String PRECIOUS = "a file the victim can write, and nobody should\n";

    @Test
    void shouldMakeTheDirectoryAndItsFilesOwnerOnly(@TempDir final Path tmp) throws Exception
    {
        final Path dir = tmp.resolve("fresh").resolve("rdma4j-stat-user");
        try (StatFile file = SoftStatFiles.create(dir, "soft0", "127.0.0.5"))
        {
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.path())));
        }
    }

    @Test
    void shouldRefuseADirectoryOpenToOthersAndWriteNothingThroughItsLinks(@TempDir final Path tmp) throws Exception
    {
        // what a user who made the directory first, world-writable, leaves for the next process
        final Path dir = tmp.resolve("rdma4j-stat");
        Files.createDirectory(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        final Path victim = victim(tmp);
        plantLinks(dir, victim);

        final IOException refused = assertThrows(IOException.class, () -> SoftStatFiles.create(dir, "soft0", "127.0.0.5"));
        assertTrue(refused.getMessage().contains("rwxrwxrwx, not rwx------"), refused.getMessage());
        assertEquals(PRECIOUS, Files.readString(victim), "the victim's file is untouched");
        final IOException unread = assertThrows(IOException.class, () -> StatReader.readAll(dir));
        assertTrue(unread.getMessage().contains(dir.toString()), unread.getMessage());

        // a device opens all the same, without a file, and never writes through the links
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY).settings(StatFileTest.statIn(dir)))
        {
            new SelfSender(fabric.open()).send(2);
        }
        assertEquals(PRECIOUS, Files.readString(victim), "the victim's file is untouched by a device");
    }

    @Test
    void shouldRefuseADirectoryAnotherUserMade(@TempDir final Path tmp) throws Exception
    {
        assumeTrue("root".equals(System.getProperty("user.name")) && Files.isExecutable(Path.of("/usr/bin/setpriv")),
            "making a directory as another user (nobody) needs root and setpriv");
        // the attacker, a real other user: the directory and its links are made by nobody (uid 65534)
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxrwxrwx"));
        final Path dir = tmp.resolve("rdma4j-stat");
        final Path victim = victim(tmp);
        final long pid = ProcessHandle.current().pid();
        final String script = "umask 077 && mkdir -m 0700 \"$1\" && for a in 127.0.0.5 127.0.0.6; do " +
            "ln -s \"$2\" \"$1/" + pid + "-soft0-$a.stat\"; done";
        final Process attacker = new ProcessBuilder("/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
            "--clear-groups", "sh", "-c", script, "sh", dir.toString(), victim.toString())
            .redirectErrorStream(true).start();
        final String said = new String(attacker.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(attacker.waitFor(30, TimeUnit.SECONDS) && attacker.exitValue() == 0, said);
        assertEquals(65534, Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS));

        final IOException refused = assertThrows(IOException.class, () -> SoftStatFiles.create(dir, "soft0", "127.0.0.5"));
        assertTrue(refused.getMessage().contains("belongs to user 65534"), refused.getMessage());
        assertEquals(PRECIOUS, Files.readString(victim), "root's file is untouched");
    }

    @Test
    void shouldReplaceALinkInItsOwnDirectoryInsteadOfFollowingIt(@TempDir final Path tmp) throws Exception
    {
        // another process of the same user can still plant a link in the owner-only directory
        final Path dir = Files.createDirectory(tmp.resolve("stat"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        final Path victim = victim(tmp);
        plantLinks(dir, victim);
        try (StatFile file = SoftStatFiles.create(dir, "soft0", "127.0.0.5"))
        {
            assertTrue(Files.isRegularFile(file.path(), LinkOption.NOFOLLOW_LINKS), "a file of its own: " + file.path());
        }
        assertEquals(PRECIOUS, Files.readString(victim), "the link's target is untouched");
    }

    @Test
    void shouldReadOnlyItsOwnRegularFilesAndNeverBlock(@TempDir final Path tmp) throws Exception
    {
        final Path dir = tmp.resolve("stat");
        try (StatFile live = SoftStatFiles.create(dir, "soft0", "127.0.0.5"))
        {
            final Process mkfifo = new ProcessBuilder("mkfifo", dir.resolve("1-fifo0-127.0.0.7.stat").toString())
                .inheritIO().start();
            assertTrue(mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
            Files.createSymbolicLink(dir.resolve("1-link0-127.0.0.8.stat"), live.path());
            final Path open = Files.copy(live.path(), dir.resolve("1-open0-127.0.0.9.stat"));
            Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-rw-rw-"));

            final List<StatReader.DeviceStat> stats = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> StatReader.readAll(dir), "a FIFO named *.stat must not block the reader");
            assertEquals(List.of("127.0.0.5"), stats.stream().map(StatReader.DeviceStat::address).toList(),
                "only the device's own file is read: not the FIFO, the link or the file others may write");
        }
    }

    @Test
    void shouldKeepTheDeviceRunningWhenItsStatFileIsTruncated(@TempDir final Path dir) throws Exception
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY).settings(StatFileTest.statIn(dir)))
        {
            final Context context = fabric.open();
            final SelfSender sender = new SelfSender(context);
            sender.send(1);
            StatFileTest.awaitCounter(dir, "sent_pkts", 1);
            final Path file = onlyFile(dir);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
            {
                channel.truncate(0);
            }
            sender.send(5);
            awaitDeviceCounter(context, "stat_file_abandoned", 1);
            sender.send(5);
            assertEquals(11, context.counters().get("sent_pkts"), "the device kept sending");
            assertEquals(0, context.counters().get("progress_errors"), "and its progress thread never faulted");
        }
    }

    @Test
    void shouldStopPublishingIntoAFileReplacedUnderItAndLeaveTheReplacement(@TempDir final Path dir) throws Exception
    {
        final Path file;
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY).settings(StatFileTest.statIn(dir)))
        {
            final Context context = fabric.open();
            final SelfSender sender = new SelfSender(context);
            sender.send(1);
            StatFileTest.awaitCounter(dir, "sent_pkts", 1);
            file = onlyFile(dir);
            final Path other = Files.writeString(dir.resolve("other"), PRECIOUS);
            Files.move(other, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            sender.send(3);
            awaitDeviceCounter(context, "stat_file_abandoned", 1);
        }
        assertEquals(PRECIOUS, Files.readString(file), "closing the device left the file put in its place");
    }

    private static Path victim(final Path tmp) throws IOException
    {
        final Path victim = Files.writeString(tmp.resolve("victim"), PRECIOUS);
        Files.setPosixFilePermissions(victim, PosixFilePermissions.fromString("rw-------"));
        return victim;
    }

    /** Links where this process's next devices would put their files, to the victim. */
    private static void plantLinks(final Path dir, final Path victim) throws IOException
    {
        final long pid = ProcessHandle.current().pid();
        for (final String name : List.of("soft0-127.0.0.5", "soft0-127.0.0.1", "soft1-127.0.0.1"))
        {
            Files.createSymbolicLink(dir.resolve(pid + "-" + name + StatFile.SUFFIX), victim);
        }
    }

    private static Path onlyFile(final Path dir) throws IOException
    {
        try (var files = Files.list(dir))
        {
            final List<Path> all = files.toList();
            assertEquals(1, all.size(), "one device's file: " + all);
            return all.getFirst();
        }
    }

    private static void awaitDeviceCounter(final Context context, final String counter, final long value)
        throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (context.counters().get(counter) != value)
        {
            assertTrue(System.nanoTime() < deadline, counter + " never reached " + value + ": " + context.counters());
            TimeUnit.MILLISECONDS.sleep(10);
        }
        assertFalse(context.counters().get(counter) > value);
    }
}
