package io.rdma4j.stat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A directory that is this user's alone is worth as much as its parent: whoever may rename entries there may move
 * it away after the check and put one of theirs under its name (issue 41). So the parent must be this user's or
 * root's, and writable by nobody else unless sticky, as {@code /tmp} and {@code /dev/shm} are.
 */
class OwnerOnlyDirectoryParentTest
{
    @Test
    void shouldRefuseADirectoryInAParentOthersMayWriteInWithoutTheStickyBit(@TempDir final Path tmp)
        throws IOException
    {
        final Path dir = tmp.resolve("inboxes");
        OwnerOnlyDirectory.open(dir, "tests");
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxrwxrwx"));
        final IOException refused = assertThrows(IOException.class, () -> OwnerOnlyDirectory.check(dir, "tests"));
        assertTrue(refused.getMessage().contains("is writable by other users and not sticky"), refused.getMessage());
        assertThrows(IOException.class, () -> OwnerOnlyDirectory.open(dir, "tests"));

        Files.setAttribute(tmp, "unix:mode", 01777);
        assertEquals(OwnerOnlyDirectory.currentUid(), OwnerOnlyDirectory.check(dir, "tests"),
            "sticky: only its owner may rename it");
    }

    @Test
    void shouldRefuseADirectoryInAParentOfAnotherUser(@TempDir final Path tmp) throws IOException
    {
        assumeTrue("root".equals(System.getProperty("user.name")), "handing a directory to nobody needs root");
        final Path parent = Files.createDirectory(tmp.resolve("nobodys"));
        final Path dir = parent.resolve("inboxes");
        OwnerOnlyDirectory.open(dir, "tests");
        Files.setAttribute(parent, "unix:uid", 65534);
        final IOException refused = assertThrows(IOException.class, () -> OwnerOnlyDirectory.check(dir, "tests"));
        assertTrue(refused.getMessage().contains("belongs to user 65534, who could replace inboxes"),
            refused.getMessage());
    }

    @Test
    void shouldMakeMissingParentsOwnerOnly(@TempDir final Path tmp) throws IOException
    {
        final Path dir = tmp.resolve("home").resolve(".rdma4j").resolve("shm");
        OwnerOnlyDirectory.open(dir, "tests");
        for (final Path made : new Path[] {tmp.resolve("home"), dir.getParent(), dir})
        {
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(made)),
                made.toString());
        }
        assertTrue(OwnerOnlyDirectory.describe(dir).endsWith(", rwx------"), OwnerOnlyDirectory.describe(dir));
        assertEquals("missing", OwnerOnlyDirectory.describe(tmp.resolve("none")));
    }
}
