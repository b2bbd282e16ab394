package io.rdma4j.stat;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * A directory only this user can enter, list or change ({@code rwx------}, this user's, not a link), and
 * the files in it, owner-only and made new. Such a directory is what makes a name in {@code /tmp} or
 * {@code /dev/shm} safe to trust: nobody else can plant a link, a FIFO or a file of theirs in it, or read
 * what is there. One made by someone else first (say after a reboot, to catch the next process that
 * would use it) is refused, never repaired: its maker may still hold a descriptor of it.
 */
public final class OwnerOnlyDirectory
{
    /** {@code rwx------}. */
    public static final Set<PosixFilePermission> DIRECTORY_MODE = Set.of(PosixFilePermission.OWNER_READ,
        PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);
    /** {@code rw-------}. */
    public static final Set<PosixFilePermission> FILE_MODE = Set.of(PosixFilePermission.OWNER_READ,
        PosixFilePermission.OWNER_WRITE);

    /** Group and other write bits of {@code st_mode}. */
    private static final int OTHERS_WRITE = 0022;
    /** {@code S_ISVTX}: in such a directory only an entry's owner may rename or remove it. */
    private static final int STICKY = 01000;

    private OwnerOnlyDirectory()
    {
    }

    /**
     * Make the directory if it is missing (its parents as usual), then check it.
     *
     * @param path the directory.
     * @param role what it is for, named in the message of a refusal (e.g. "stat files").
     * @return this user's id, the owner of the directory.
     * @throws IOException if it cannot be made, or is a link, or another user's, or open to others, or in a
     *                     parent others may rename it in: the message names which, and the directory.
     */
    public static int open(final Path path, final String role) throws IOException
    {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS))
        {
            final Path parent = path.toAbsolutePath().getParent();
            if (parent != null && !Files.isDirectory(parent))
            {
                // owner-only too: the check below refuses a parent that others may write in
                Files.createDirectories(parent, PosixFilePermissions.asFileAttribute(DIRECTORY_MODE));
            }
            try
            {
                // the mode at creation, so there is no moment where it is open to others; a umask only
                // takes bits away
                Files.createDirectory(path, PosixFilePermissions.asFileAttribute(DIRECTORY_MODE));
            }
            catch (final FileAlreadyExistsException ex)
            {
                // another process made it first: checked below like any other
            }
        }
        return check(path, role);
    }

    /**
     * @param path the directory.
     * @param role what it is for, named in the message of a refusal.
     * @return this user's id, the owner of the directory.
     * @throws IOException if it is missing, a link, another user's or open to others, or in a parent that is
     *                     another user's or that others may write in without its sticky bit.
     */
    public static int check(final Path path, final String role) throws IOException
    {
        final int uid = currentUid();
        final PosixFileAttributes attributes =
            Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (attributes.isSymbolicLink() || !attributes.isDirectory())
        {
            throw new IOException(path + " is not a directory but a " + (attributes.isSymbolicLink() ? "link" :
                "file") + ": it is not used for " + role);
        }
        final int owner = ownerOf(path);
        if (owner != uid)
        {
            throw new IOException(path + " belongs to user " + owner + ", not to this user (" + uid +
                "): it is not used for " + role + "; remove it, or name another directory");
        }
        if (!attributes.permissions().equals(DIRECTORY_MODE))
        {
            throw new IOException(path + " is " + PosixFilePermissions.toString(attributes.permissions()) +
                ", not rwx------: other users could change what is in it, so it is not used for " + role);
        }
        checkParent(path, role, uid);
        return uid;
    }

    /**
     * @param path a path.
     * @return its owner and mode as a refusal names them ({@code "user 65534, rwxrwxrwx"}), not following a link;
     *         {@code "missing"} if there is nothing there.
     */
    public static String describe(final Path path)
    {
        try
        {
            final PosixFileAttributes attributes =
                Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return "user " + ownerOf(path) + ", " + (attributes.isSymbolicLink() ? "a link" :
                PosixFilePermissions.toString(attributes.permissions()));
        }
        catch (final IOException | RuntimeException ex)
        {
            return "missing";
        }
    }

    /**
     * Whoever may rename entries of the parent may move the checked directory away and put one of theirs under
     * its name after the check: the parent must be this user's or root's, and writable by no one else unless
     * sticky ({@code /tmp}, {@code /dev/shm}), where only an entry's owner may rename it.
     */
    private static void checkParent(final Path path, final String role, final int uid) throws IOException
    {
        final Path parent = path.toAbsolutePath().getParent();
        if (parent == null)
        {
            return;
        }
        // followed: a link among the parents (/var/run) is the system's, and what counts is the directory itself
        final int owner = (Integer)Files.getAttribute(parent, "unix:uid");
        final int mode = (Integer)Files.getAttribute(parent, "unix:mode");
        if (owner != uid && owner != 0)
        {
            throw new IOException(parent + ", the parent of " + path + ", belongs to user " + owner + ", who could " +
                "replace " + path.getFileName() + " after it is checked: it is not used for " + role);
        }
        if ((mode & OTHERS_WRITE) != 0 && (mode & STICKY) == 0)
        {
            throw new IOException(parent + ", the parent of " + path + ", is writable by other users and not " +
                "sticky, so they could replace " + path.getFileName() + " after it is checked: it is not used " +
                "for " + role);
        }
    }

    /**
     * @param file a path, not followed if it is a link.
     * @param uid  the user it must belong to.
     * @return true if it is a regular file (not a link, FIFO, device or directory) of that user that no other
     *         user may read or write: the only kind a reader opens, so that opening never blocks and never
     *         reads what another user put there.
     */
    public static boolean isOwnFile(final Path file, final int uid)
    {
        try
        {
            final PosixFileAttributes attributes =
                Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return attributes.isRegularFile() && ownerOf(file) == uid && FILE_MODE.containsAll(
                attributes.permissions());
        }
        catch (final IOException | RuntimeException ex)
        {
            return false;
        }
    }

    /**
     * @return the attribute to create a file {@code rw-------} with.
     */
    public static FileAttribute<Set<PosixFilePermission>> fileMode()
    {
        return PosixFilePermissions.asFileAttribute(FILE_MODE);
    }

    /**
     * @param properties looks a system property up (null when unset).
     * @return the user's name ({@code user.name}) as part of a per-user directory's name: anything but letters,
     *         digits and {@code _.-} made {@code _}.
     */
    public static String userNamePart(final UnaryOperator<String> properties)
    {
        final String user = properties.apply("user.name");
        return (user == null ? "user" : user).replaceAll("[^A-Za-z0-9_.-]", "_");
    }

    /**
     * @param properties looks a system property up (null when unset).
     * @return {@code java.io.tmpdir} as those properties give it, else this JVM's.
     */
    public static Path temporaryDirectory(final UnaryOperator<String> properties)
    {
        final String tmp = properties.apply("java.io.tmpdir");
        return Path.of(tmp == null ? System.getProperty("java.io.tmpdir") : tmp);
    }

    /**
     * @return this process's user id.
     * @throws IOException if the system does not tell it (no {@code /proc/self}).
     */
    public static int currentUid() throws IOException
    {
        try
        {
            // /proc/self is a link to the process's own directory, owned by its (effective) user: followed
            return (Integer)Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        }
        catch (final UnsupportedOperationException | IllegalArgumentException | IOException ex)
        {
            throw new IOException("this system tells no user id (no /proc/self), so no owner can be checked", ex);
        }
    }

    /**
     * Delete the files of a directory that match a glob and a test, as a process cleans up after itself or after
     * the dead. A file that goes meanwhile, or a directory that cannot be listed, ends the sweep with what it
     * deleted so far: the next one takes what is left.
     *
     * @param dir   a directory the caller has checked ({@link #check}).
     * @param glob  the names to look at ({@code *.inbox}, {@code <pid>-*.stat}).
     * @param which whether to delete a file so named.
     * @return how many were deleted.
     */
    public static int deleteFiles(final Path dir, final String glob, final Predicate<Path> which)
    {
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, glob))
        {
            for (final Path file : files)
            {
                if (which.test(file))
                {
                    removed += Files.deleteIfExists(file) ? 1 : 0;
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // a file that went while we looked, or a directory we cannot list: left for the next sweep
        }
        return removed;
    }

    /**
     * {@link #deleteFiles} in a directory that is first checked to be this user's alone; one that is missing or
     * is not is left alone.
     *
     * @param dir   the directory.
     * @param role  what it is for, as {@link #check} takes it.
     * @param glob  the names to look at.
     * @param which whether to delete a file so named.
     * @return how many were deleted.
     */
    public static int deleteFilesIfOwnerOnly(final Path dir, final String role, final String glob,
        final Predicate<Path> which)
    {
        try
        {
            check(dir, role);
        }
        catch (final IOException ex)
        {
            return 0;
        }
        return deleteFiles(dir, glob, which);
    }

    private static int ownerOf(final Path path) throws IOException
    {
        return (Integer)Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }
}
