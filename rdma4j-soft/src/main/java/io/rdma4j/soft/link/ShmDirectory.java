package io.rdma4j.soft.link;

import io.rdma4j.stat.OwnerOnlyDirectory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A per-user directory of same-host inboxes, one of the places the device's settings name
 * ({@code rdma4j.soft.shm.dir}, {@link ShmPlaces}): {@code /dev/shm/rdma4j-USER} first by default (memory, never
 * written back to a disk). The directory must be this user's and {@code rwx------}, in a parent nobody else may
 * rename it in, so only this user's processes can create, replace or write the inboxes in it; one that is not is
 * refused.
 * <p>
 * An inbox is named by the device's address and port and by the network namespace of the process
 * ({@code /proc/self/ns/net}): two namespaces may each have a 127.0.0.1 with a device on it, and they must
 * not meet in one file.
 */
public final class ShmDirectory
{
    private static final String ROLE = "same-host inboxes";

    private final Path path;
    private final int uid;
    private final String namespace;

    private ShmDirectory(final Path path, final int uid, final String namespace)
    {
        this.path = path;
        this.uid = uid;
        this.namespace = namespace;
    }

    /**
     * @param path the directory, made if missing.
     * @return it.
     * @throws IOException if it cannot be made, or is not this user's alone (the message says which).
     */
    public static ShmDirectory open(final Path path) throws IOException
    {
        return new ShmDirectory(path, OwnerOnlyDirectory.open(path, ROLE), namespace());
    }

    /**
     * @param path the directory, never made here.
     * @return it.
     * @throws IOException if it is missing, or is not this user's alone (the message says which).
     */
    static ShmDirectory existing(final Path path) throws IOException
    {
        return new ShmDirectory(path, OwnerOnlyDirectory.check(path, ROLE), namespace());
    }

    /**
     * @return the directory.
     */
    public Path path()
    {
        return path;
    }

    /**
     * @return the user every inbox in the directory must belong to.
     */
    int uid()
    {
        return uid;
    }

    /**
     * Delete the inboxes whose processes died without closing them (each holds its ring's memory).
     *
     * @return how many were deleted.
     */
    int removeDeadInboxes()
    {
        return OwnerOnlyDirectory.deleteFiles(path, "*.inbox", ShmInbox::leftByTheDead);
    }

    /**
     * Delete this process's own inboxes from a directory of them, as the process exits: peers that mapped one
     * keep their mapping, and no later one finds a file whose owner is gone. A directory that is missing, or not
     * this user's alone, is left alone.
     *
     * @param path the directory.
     * @return how many were deleted.
     */
    public static int removeOwnInboxes(final Path path)
    {
        return OwnerOnlyDirectory.deleteFilesIfOwnerOnly(path, ROLE, "*.inbox", ShmInbox::ownedByThisProcess);
    }

    /**
     * @param address an IPv4 or IPv6 address, as text.
     * @param port    a UDP port.
     * @return the file of the inbox of the device on that address and port in this network namespace.
     */
    public Path inbox(final String address, final int port)
    {
        return inbox(path, namespace, address, port);
    }

    /**
     * @return the file of the inbox of that address and port in that network namespace, in a directory checked
     *         or not.
     */
    static Path inbox(final Path directory, final String namespace, final String address, final int port)
    {
        return directory.resolve(address + "-" + port + "-" + namespace + ".inbox");
    }

    /**
     * @return this process's network namespace, as inbox names carry it.
     */
    static String namespace()
    {
        try
        {
            // "net:[4026531840]": the namespace's inode
            return Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString().replaceAll("[^0-9]", "");
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            return "0";
        }
    }
}
