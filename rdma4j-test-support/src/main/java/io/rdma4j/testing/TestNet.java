package io.rdma4j.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Loopback addresses and multicast groups that belong to this test JVM alone.
 * <p>
 * A software device owns UDP 4791 on its address, and loopback multicast reaches every process on the
 * host, so two builds running at once (two engineers, a CI job beside a benchmark) must never pick the same
 * address or group. Addresses derived from the process id collide now and then; instead each JVM claims
 * a <em>slot</em>: the first of {@value #SLOTS} lock files in {@code $TMPDIR/rdma4j-test-slots-USER} it can
 * lock. The operating system releases the lock when the JVM dies, however it dies, so no slot leaks. The
 * slot is the second octet of every address handed out: {@code 127.SLOT.subnet.host} and
 * {@code 239.SLOT.subnet.host}. Subnets below {@value #FIRST_FIXTURE_SUBNET} are for the hosts and groups
 * that tests name by number ({@link #host(int)}, {@link #host(int, int)}, {@link #group(int, int)}; subnet 0
 * when none is given); {@link #nextSubnet()} gives a fixture a /24 of its own from the rest.
 */
public final class TestNet
{
    /** How many test JVMs can run at once on one host (second octets 1..250). */
    public static final int SLOTS = 250;

    /** The first subnet {@link #nextSubnet()} hands out; those below are named by tests. */
    public static final int FIRST_FIXTURE_SUBNET = 100;

    /** TCP ports per slot ({@link #tcpPort(int)}). */
    public static final int PORTS_PER_SLOT = 40;
    /** The first of the slots' TCP ports. */
    public static final int FIRST_PORT = 20_000;

    private static final int LAST_SUBNET = 254;
    private static final AtomicInteger NEXT_SUBNET = new AtomicInteger();
    private static final Slot SLOT = Slot.claim();

    private TestNet()
    {
    }

    /**
     * @return this JVM's slot, 1..{@value #SLOTS}: the second octet of its addresses and groups.
     */
    public static int slot()
    {
        return SLOT.number;
    }

    /**
     * @param host 1..254.
     * @return {@code 127.SLOT.0.host} as text, for a tool's command line.
     */
    public static String host(final int host)
    {
        return "127." + slot() + ".0." + checkOctet(host, "host");
    }

    /**
     * @param subnet 0..{@value #FIRST_FIXTURE_SUBNET} - 1, a subnet the test names.
     * @param host   1..254.
     * @return {@code 127.SLOT.subnet.host} as text.
     */
    public static String host(final int subnet, final int host)
    {
        return "127." + slot() + "." + checkNamedSubnet(subnet) + "." + checkOctet(host, "host");
    }

    /**
     * @param host 1..254.
     * @return {@code 127.SLOT.0.host}.
     */
    public static InetAddress hostAddress(final int host)
    {
        return address(127, 0, host);
    }

    /**
     * @param subnet a subnet from {@link #nextSubnet()}.
     * @param host   1..254.
     * @return {@code 127.SLOT.subnet.host}.
     */
    public static InetAddress address(final int subnet, final int host)
    {
        return address(127, subnet, host);
    }

    /**
     * @param group 1..254.
     * @return {@code 239.SLOT.0.group} as text.
     */
    public static String group(final int group)
    {
        return "239." + slot() + ".0." + checkOctet(group, "group");
    }

    /**
     * @param subnet 0..{@value #FIRST_FIXTURE_SUBNET} - 1, a subnet the test names.
     * @param group  1..254.
     * @return {@code 239.SLOT.subnet.group} as text.
     */
    public static String group(final int subnet, final int group)
    {
        return "239." + slot() + "." + checkNamedSubnet(subnet) + "." + checkOctet(group, "group");
    }

    /**
     * @param group 1..254.
     * @return {@code 239.SLOT.0.group}.
     */
    public static InetAddress groupAddress(final int group)
    {
        return address(239, 0, group);
    }

    /**
     * @param subnet a subnet from {@link #nextSubnet()}.
     * @param group  1..254.
     * @return {@code 239.SLOT.subnet.group}.
     */
    public static InetAddress groupAddress(final int subnet, final int group)
    {
        return address(239, subnet, group);
    }

    /**
     * A /24 of this JVM's own for a fixture that makes devices as it goes (127.SLOT.subnet.0/24 and
     * 239.SLOT.subnet.0/24). Subnets are handed out in turn and wrap after 254, by which time the fixture
     * that had the first one has long been closed.
     *
     * @return {@value #FIRST_FIXTURE_SUBNET}..254.
     */
    public static int nextSubnet()
    {
        return FIRST_FIXTURE_SUBNET + NEXT_SUBNET.getAndIncrement() % (LAST_SUBNET - FIRST_FIXTURE_SUBNET + 1);
    }

    /**
     * A TCP port of this JVM's own, for a tool that listens on every address (as rdma-core's ping-pong tools
     * do for their address exchange), where an address of its own does not keep two builds apart.
     *
     * @param n 0..{@value #PORTS_PER_SLOT} - 1, which of this JVM's ports.
     * @return {@value #FIRST_PORT} + SLOT × {@value #PORTS_PER_SLOT} + n: below Linux's ephemeral range.
     */
    public static int tcpPort(final int n)
    {
        if (n < 0 || n >= PORTS_PER_SLOT)
        {
            throw new IllegalArgumentException("port " + n + " is outside 0.." + (PORTS_PER_SLOT - 1));
        }
        return FIRST_PORT + slot() * PORTS_PER_SLOT + n;
    }

    /**
     * Wait until no other test JVM on this host uses the tools' literal defaults (a device on 127.0.0.1, a
     * client on the first free 127.0.0.x, TCP 18515), then hold them until the returned lock is closed. For
     * the few tests that run rdma4j's default command lines exactly as a user types them.
     *
     * @return the lock; close it when the test is over.
     * @throws IOException if the lock file cannot be opened.
     */
    public static AutoCloseable lockDefaultAddresses() throws IOException
    {
        final FileChannel channel = FileChannel.open(slotDirectory().resolve("default-addresses.lock"),
            StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        final FileLock lock = channel.lock();
        return () ->
        {
            lock.release();
            channel.close();
        };
    }

    private static Path slotDirectory() throws IOException
    {
        final Path directory = Path.of(System.getProperty("java.io.tmpdir"),
            "rdma4j-test-slots-" + System.getProperty("user.name", "user"));
        Files.createDirectories(directory);
        return directory;
    }

    private static InetAddress address(final int first, final int subnet, final int host)
    {
        try
        {
            return InetAddress.getByAddress(new byte[] {
                (byte)first, (byte)slot(), (byte)checkOctet(subnet, "subnet", 0), (byte)checkOctet(host, "host")});
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static int checkNamedSubnet(final int subnet)
    {
        if (subnet < 0 || subnet >= FIRST_FIXTURE_SUBNET)
        {
            throw new IllegalArgumentException("subnet " + subnet + " is outside 0.." + (FIRST_FIXTURE_SUBNET - 1) +
                ", the subnets tests name (those above are handed out by nextSubnet())");
        }
        return subnet;
    }

    private static int checkOctet(final int value, final String what)
    {
        return checkOctet(value, what, 1);
    }

    private static int checkOctet(final int value, final String what, final int lowest)
    {
        if (value < lowest || value > LAST_SUBNET)
        {
            throw new IllegalArgumentException(what + " " + value + " is outside " + lowest + ".." + LAST_SUBNET);
        }
        return value;
    }

    /** The lock that makes a slot this JVM's; held, never released, until the JVM exits. */
    private record Slot(int number, FileChannel channel, FileLock lock)
    {
        static Slot claim()
        {
            Path directory = Path.of(System.getProperty("java.io.tmpdir"));
            try
            {
                directory = slotDirectory();
                // start at a place that differs between processes, so that JVMs starting together do not
                // all contend for slot 1 first
                final int start = (int)(ProcessHandle.current().pid() % SLOTS);
                for (int i = 0; i < SLOTS; i++)
                {
                    final int number = (start + i) % SLOTS + 1;
                    final FileChannel channel = FileChannel.open(directory.resolve("slot-" + number + ".lock"),
                        StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    final FileLock lock = channel.tryLock();
                    if (null != lock)
                    {
                        return new Slot(number, channel, lock);
                    }
                    channel.close();
                }
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException("cannot claim a test address slot under " + directory, ex);
            }
            throw new IllegalStateException("all " + SLOTS + " test address slots under " + directory +
                " are held by running JVMs");
        }
    }
}
