package io.rdma4j.soft.link;

import io.rdma4j.stat.OwnerOnlyDirectory;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * A device's same-host inbox: a file in the user's {@link ShmDirectory}, named by the device's address and
 * port, mapped by the device (the one reader) and by every device of this host that sends to it. It holds
 * who owns it (pid and process start, to tell a dead owner from a pid reused), whether it is open, a
 * heartbeat, the owner's parked flag and the {@link ShmRing}. An IPv6 device's inbox names its 16-byte address
 * and its ring carries IPv6 records; an IPv4 one names its 4-byte address: a sender takes a file only if it names
 * the very address it sends to.
 * <p>
 * Layout (native byte order, which is the same for every process of a host):
 * <pre>
 *   0  magic "r4jshm03"        8  owner pid (long)       16 owner start, ms since the epoch (long)
 *  24  ring capacity (int)    28  UDP port (int)         32 IPv4 address (int)    36 state (int)
 *  40  IPv6 address (two big-endian longs; 0 in an IPv4 inbox, whose layout is that of the first version)
 *  64  heartbeat, ms since the epoch (long), a cache line of its own
 * 128  parked flag (int), a cache line of its own
 * 256  ring control block (tail, head)
 * 512  ring data
 * </pre>
 */
final class ShmInbox
{
    /** Why a file was not taken as a peer's inbox. */
    enum Refusal
    {
        /** Taken. */
        NONE,
        /** No such file: the destination has no same-host inbox. */
        ABSENT,
        /** Not a regular file of this user (another user's, or a link). */
        OWNER,
        /** Readable or writable by others than its owner. */
        MODE,
        /** Not laid out as an inbox, or for another address. */
        FORMAT,
        /** Its owner has closed it or is dead. */
        GONE
    }

    static final int STATE_OPEN = 1;
    static final int STATE_CLOSED = 2;
    static final int MIN_CAPACITY = 64 * 1024;
    static final int MAX_CAPACITY = 64 * 1024 * 1024;

    /**
     * The format's name and version. Version 02's rings carry records without an ICRC ({@link ShmRing}), which a
     * reader of version 01 would take for damage; version 03's writers publish a record with a release store, and
     * its readers look for a claimed record before they wait, which a reader of version 02 does not (it could
     * sleep through such a record). Versions refuse each other's inboxes and speak by UDP.
     */
    private static final byte[] MAGIC = "r4jshm03".getBytes(StandardCharsets.US_ASCII);
    /** The magic's bytes that every version shares, by which a file a dead owner left is known for an inbox. */
    private static final int MAGIC_FAMILY_LENGTH = 7;
    private static final int PID_AT = 8;
    private static final int START_AT = 16;
    private static final int CAPACITY_AT = 24;
    private static final int PORT_AT = 28;
    private static final int ADDRESS_AT = 32;
    private static final int STATE_AT = 36;
    private static final int IPV6_HIGH_AT = 40;
    private static final int IPV6_LOW_AT = 48;
    private static final int HEARTBEAT_AT = 64;
    private static final int PARKED_AT = 128;
    private static final int RING_CONTROL_AT = 256;
    private static final int RING_DATA_AT = 512;
    private static final Set<PosixFilePermission> OWNER_ONLY = OwnerOnlyDirectory.FILE_MODE;

    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final Path path;
    private final MemorySegment file;
    private final ShmRing ring;
    private final long pid;
    private final long start;
    private final Object fileKey;

    private ShmInbox(final Path path, final MemorySegment file, final Object fileKey, final boolean ipv6)
    {
        this.path = path;
        this.file = file;
        this.fileKey = fileKey;
        this.pid = file.get(ValueLayout.JAVA_LONG, PID_AT);
        this.start = file.get(ValueLayout.JAVA_LONG, START_AT);
        final int capacity = file.get(ValueLayout.JAVA_INT, CAPACITY_AT);
        this.ring = new ShmRing(file.asSlice(RING_CONTROL_AT, ShmRing.CONTROL_BYTES),
            file.asSlice(RING_DATA_AT, capacity), ipv6);
    }

    /**
     * Make this process's inbox for an address and port, replacing whatever file a dead or closed owner left:
     * the caller owns the address's UDP port, so no live device can own the name. The new file is written
     * under a name of its own and renamed over the old, so a sender never maps a half-made inbox.
     *
     * @param path     where.
     * @param address  the device's address, IPv4 or IPv6.
     * @param port     its UDP port.
     * @param capacity the ring's bytes, a power of two.
     * @return the inbox, open.
     * @throws IOException if the file cannot be made.
     */
    static ShmInbox create(final Path path, final InetAddress address, final int port, final int capacity)
        throws IOException
    {
        final boolean ipv6 = address instanceof Inet6Address;
        final long pid = ProcessHandle.current().pid();
        final Path temporary = path.resolveSibling(path.getFileName() + "." + pid + ".new");
        Files.deleteIfExists(temporary);
        final long size = RING_DATA_AT + (long)capacity;
        try (FileChannel channel = FileChannel.open(temporary, Set.<OpenOption>of(StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
            PosixFilePermissions.asFileAttribute(OWNER_ONLY)))
        {
            // the umask may have taken bits away, never added: set exactly rw-------
            Files.setPosixFilePermissions(temporary, OWNER_ONLY);
            final MemorySegment file = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, Arena.ofAuto());
            file.set(ValueLayout.JAVA_LONG, PID_AT, pid);
            file.set(ValueLayout.JAVA_LONG, START_AT, processStart(ProcessHandle.current()));
            file.set(ValueLayout.JAVA_INT, CAPACITY_AT, capacity);
            file.set(ValueLayout.JAVA_INT, PORT_AT, port);
            file.set(ValueLayout.JAVA_INT, ADDRESS_AT, ipv6 ? 0 : Ipv4.toInt(address));
            file.set(ValueLayout.JAVA_LONG, IPV6_HIGH_AT, Ipv6.high(address));
            file.set(ValueLayout.JAVA_LONG, IPV6_LOW_AT, Ipv6.low(address));
            file.set(ValueLayout.JAVA_INT, STATE_AT, STATE_OPEN);
            file.set(ValueLayout.JAVA_LONG, HEARTBEAT_AT, System.currentTimeMillis());
            MemorySegment.copy(MemorySegment.ofArray(MAGIC), 0, file, 0, MAGIC.length);
            final Object key = Files.readAttributes(temporary, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .fileKey();
            Files.move(temporary, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return new ShmInbox(path, file, key, ipv6);
        }
        catch (final IOException | RuntimeException ex)
        {
            Files.deleteIfExists(temporary);
            throw ex;
        }
    }

    /**
     * Map another device's inbox to send to it, if the file is one: this user's, readable and writable by
     * nobody else, laid out as an inbox for this address and port, open, and its owner alive.
     *
     * @param path    the file.
     * @param address the destination's address, IPv4 or IPv6, which the file must name.
     * @param port    the destination's port.
     * @param uid     this process's user id.
     * @param refusal where the verdict goes (element 0).
     * @return the inbox, or null with the reason in {@code refusal[0]}.
     */
    static ShmInbox open(final Path path, final InetAddress address, final int port, final int uid,
        final Refusal[] refusal)
    {
        final boolean ipv6 = address instanceof Inet6Address;
        final PosixFileAttributes attributes;
        final int owner;
        try
        {
            attributes = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            owner = (Integer)Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        }
        catch (final IOException | RuntimeException ex)
        {
            refusal[0] = Refusal.ABSENT;
            return null;
        }
        if (!attributes.isRegularFile() || owner != uid)
        {
            refusal[0] = Refusal.OWNER;
            return null;
        }
        if (!attributes.permissions().equals(OWNER_ONLY))
        {
            refusal[0] = Refusal.MODE;
            return null;
        }
        final long size = attributes.size();
        if (size < RING_DATA_AT + (long)MIN_CAPACITY || size > RING_DATA_AT + (long)MAX_CAPACITY)
        {
            refusal[0] = Refusal.FORMAT;
            return null;
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS))
        {
            // the size read now, not the one above: the file may have been replaced in between
            final long mappedSize = channel.size();
            if (mappedSize < RING_DATA_AT + (long)MIN_CAPACITY || mappedSize > RING_DATA_AT + (long)MAX_CAPACITY)
            {
                refusal[0] = Refusal.FORMAT;
                return null;
            }
            final MemorySegment file = channel.map(FileChannel.MapMode.READ_WRITE, 0, mappedSize, Arena.ofAuto());
            final int capacity = file.get(ValueLayout.JAVA_INT, CAPACITY_AT);
            if (!hasMagic(file) || capacity < MIN_CAPACITY || capacity > MAX_CAPACITY ||
                Integer.bitCount(capacity) != 1 || RING_DATA_AT + (long)capacity != mappedSize ||
                file.get(ValueLayout.JAVA_INT, ADDRESS_AT) != (ipv6 ? 0 : Ipv4.toInt(address)) ||
                file.get(ValueLayout.JAVA_LONG, IPV6_HIGH_AT) != Ipv6.high(address) ||
                file.get(ValueLayout.JAVA_LONG, IPV6_LOW_AT) != Ipv6.low(address) ||
                file.get(ValueLayout.JAVA_INT, PORT_AT) != port)
            {
                refusal[0] = Refusal.FORMAT;
                return null;
            }
            final ShmInbox inbox = new ShmInbox(path, file, attributes.fileKey(), ipv6);
            if (!inbox.isOpen() || !inbox.ownerAlive())
            {
                refusal[0] = Refusal.GONE;
                return null;
            }
            refusal[0] = Refusal.NONE;
            return inbox;
        }
        catch (final IOException | RuntimeException ex)
        {
            // gone between the look and the open, or a mapping refused: as absent
            refusal[0] = Refusal.ABSENT;
            return null;
        }
    }

    /**
     * @return the ring.
     */
    ShmRing ring()
    {
        return ring;
    }

    /**
     * @return the file.
     */
    Path path()
    {
        return path;
    }

    /**
     * @return true until the owner closes it.
     */
    boolean isOpen()
    {
        return STATE_OPEN == (int)INT.getVolatile(file, (long)STATE_AT);
    }

    /**
     * The owner's mark that it will read no more: senders that see it go back to UDP.
     */
    void markClosed()
    {
        INT.setVolatile(file, (long)STATE_AT, STATE_CLOSED);
    }

    /**
     * @return the owner's last heartbeat, ms since the epoch.
     */
    long heartbeat()
    {
        return (long)LONG.getOpaque(file, (long)HEARTBEAT_AT);
    }

    /**
     * The owner says it is alive (its thread passes its receive loop).
     *
     * @param nowMs the time, ms since the epoch.
     */
    void beat(final long nowMs)
    {
        LONG.setOpaque(file, (long)HEARTBEAT_AT, nowMs);
    }

    /**
     * The owner's thread is about to wait in the socket's selector (or has stopped): the next sender
     * wakes it.
     *
     * @param parked true before waiting, false after.
     */
    void parked(final boolean parked)
    {
        INT.setVolatile(file, (long)PARKED_AT, parked ? 1 : 0);
    }

    /**
     * @return true while the owner's parked flag is set.
     */
    boolean isParked()
    {
        return 0 != (int)INT.getVolatile(file, (long)PARKED_AT);
    }

    /**
     * A sender takes the parked flag after publishing: whoever takes it sends the one wake-up the park
     * needs.
     *
     * @return true if the owner was parked and this caller is the one to wake it.
     */
    boolean takeParked()
    {
        return 0 != (int)INT.getVolatile(file, (long)PARKED_AT) && INT.compareAndSet(file, (long)PARKED_AT, 1, 0);
    }

    /**
     * @return true if the owning process runs: the pid exists and started when the file says (not a pid
     *         reused). Allocates; senders call it only when the heartbeat is old.
     */
    boolean ownerAlive()
    {
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).map(ShmInbox::processStart)
            .map(s -> s == start).orElse(false);
    }

    /**
     * Delete the file if it is still this inbox's (a new owner of the address may have replaced it).
     */
    void unlink()
    {
        try
        {
            final Object key = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .fileKey();
            if (key != null && key.equals(fileKey))
            {
                Files.deleteIfExists(path);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // already gone, or replaced: nothing of ours to delete
        }
    }

    /**
     * @param path a file of the inbox directory.
     * @return true if it is an inbox whose owning process no longer runs: a file left by a crash, which
     *         nobody else would remove. Allocates; for a device that starts.
     */
    static boolean leftByTheDead(final Path path)
    {
        final long[] owner = owner(path);
        return owner != null && ProcessHandle.of(owner[0]).filter(ProcessHandle::isAlive).map(ShmInbox::processStart)
            .map(s -> s != owner[1]).orElse(true);
    }

    /**
     * @param path a file of the inbox directory.
     * @return true if it is an inbox this process made (its pid and start in the header), which it removes as it
     *         exits. Allocates; for a process that ends.
     */
    static boolean ownedByThisProcess(final Path path)
    {
        final long[] owner = owner(path);
        final ProcessHandle self = ProcessHandle.current();
        return owner != null && owner[0] == self.pid() && owner[1] == processStart(self);
    }

    /** @return the pid and start the inbox's header names, or null for a file that is no inbox. */
    private static long[] owner(final Path path)
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))
        {
            final java.nio.ByteBuffer header = java.nio.ByteBuffer.allocate(START_AT + Long.BYTES)
                .order(java.nio.ByteOrder.nativeOrder());
            while (header.hasRemaining() && channel.read(header) > 0)
            {
                // read the fixed header
            }
            if (header.hasRemaining() ||
                !java.util.Arrays.equals(header.array(), 0, MAGIC_FAMILY_LENGTH, MAGIC, 0, MAGIC_FAMILY_LENGTH))
            {
                return null;
            }
            return new long[] {header.getLong(PID_AT), header.getLong(START_AT)};
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }

    private static boolean hasMagic(final MemorySegment file)
    {
        return MemorySegment.mismatch(file, 0, MAGIC.length, MemorySegment.ofArray(MAGIC), 0, MAGIC.length) == -1;
    }

    private static long processStart(final ProcessHandle process)
    {
        return process.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L);
    }
}
