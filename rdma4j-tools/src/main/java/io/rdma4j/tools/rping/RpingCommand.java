package io.rdma4j.tools.rping;

import io.rdma4j.cm.EventChannel;
import io.rdma4j.tools.common.CNumber;
import io.rdma4j.tools.common.HandshakeDeadlines;
import io.rdma4j.tools.common.DeviceOption;
import io.rdma4j.tools.common.SoftAddress;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.Callable;

/**
 * {@code rdma4j rping}: librdmacm's rping. An RC connection through the connection manager, then
 * pings that exercise SEND, RDMA READ and RDMA WRITE with rping's wire exchange, flags, messages
 * and exit status, so either end can be rdma-core's rping on Linux rxe.
 * <p>
 * Exit status is rping's return value as a process sees it: 0 on success, 255 for its -1, 22
 * (EINVAL) for bad arguments.
 */
@Command(name = "rping", sortOptions = false, exitCodeOnInvalidInput = 22,
    description = "RC ping-pong with SEND, RDMA READ and RDMA WRITE through the connection manager, "
        + "like librdmacm's rping.")
public final class RpingCommand implements Callable<Integer>
{
    /** rping's default port. */
    public static final int DEFAULT_PORT = 7174;
    /** rping's default ping size. */
    public static final int DEFAULT_SIZE = 64;
    /** The smallest size: room for the longest "rdma-ping-N: " header, as rping computes it. */
    public static final int MIN_SIZE = 26;
    /** rping's buffer size; a ping must be smaller. */
    public static final int BUFSIZE = 64 * 1024;

    private enum Role { NONE, SERVER, CLIENT }

    @Spec
    private CommandSpec spec;

    private Role role = Role.NONE;

    @Option(order = 13, names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    private boolean help;

    @Option(order = 3, names = "-a", paramLabel = "addr",
        description = "server: address to bind (default: any); client: the server's address")
    private String address;

    @Option(order = 4, names = "-I", paramLabel = "addr", description = "client: source address to bind to")
    private String sourceAddress;

    @Option(order = 5, names = "-p", paramLabel = "port", defaultValue = "7174", converter = CNumber.class,
        description = "port (default ${DEFAULT-VALUE})")
    private int port;

    @Option(order = 6, names = "-C", paramLabel = "count", defaultValue = "0", converter = CNumber.class,
        description = "pings before the client disconnects (default 0: until stopped)")
    private int count;

    @Option(order = 7, names = "-S", paramLabel = "size", defaultValue = "64", converter = CNumber.class,
        description = "bytes per ping, 26 to 65535 (default ${DEFAULT-VALUE}); a server's must be at least its "
            + "clients', as it reads their whole buffer into its own")
    private int size;

    @Option(order = 8, names = "-v", description = "print each ping's data")
    private boolean verbose;

    @Option(order = 9, names = "-V", description = "client: check the data written back equals the data read")
    private boolean validate;

    @Option(order = 10, names = "-d", description = "print a debug trace")
    private boolean debug;

    // rping's -d is its debug trace, so the device takes the long name of the ping-pong tools' -d
    @Option(order = 14, names = "--ib-dev", paramLabel = "device", description = "rdma4j: use this device's "
        + "engine (default: the engine of the bind or resolved address)")
    private String deviceName;

    @Option(order = 11, names = "-P", description = "persistent server: serve one client after another (and at once) "
        + "until killed")
    private boolean persistent;

    @Option(order = 16, names = "--handshake-timeout", paramLabel = "seconds",
        defaultValue = HandshakeDeadlines.DEFAULT_SECONDS, converter = CNumber.class,
        description = "rdma4j: server: a connection request accepted but not established within this long is "
            + "dropped, its QP and buffers freed (default ${DEFAULT-VALUE}; 0: wait for ever, as rping)")
    private int handshakeSeconds;

    @Option(order = 12, names = "-q", description = "create the QP with ibv_create_qp and move it with "
        + "rdma_init_qp_attr (and rdma_establish on the client), instead of rdma_create_qp")
    private boolean selfCreatedQp;

    /**
     * @param on -s: run as the server (the last of -s and -c wins, as in rping).
     */
    @Option(order = 1, names = "-s", description = "server")
    void server(final boolean on)
    {
        role = on ? Role.SERVER : role;
    }

    /**
     * @param on -c: run as the client (the last of -s and -c wins, as in rping).
     */
    @Option(order = 2, names = "-c", description = "client")
    void client(final boolean on)
    {
        role = on ? Role.CLIENT : role;
    }

    /**
     * @return true for -s (server), false for -c (client).
     * @throws IllegalStateException if neither was given.
     */
    public boolean isServer()
    {
        if (role == Role.NONE)
        {
            throw new IllegalStateException("neither -s nor -c");
        }
        return role == Role.SERVER;
    }

    /**
     * @return true once -s or -c was given.
     */
    public boolean hasRole()
    {
        return role != Role.NONE;
    }

    /**
     * @return -a, or null.
     */
    public String address()
    {
        return address;
    }

    /**
     * @return -I, or null.
     */
    public String sourceAddress()
    {
        return sourceAddress;
    }

    /**
     * @return -p.
     */
    public int port()
    {
        return port;
    }

    /**
     * @return -C.
     */
    public int count()
    {
        return count;
    }

    /**
     * @return -S.
     */
    public int size()
    {
        return size;
    }

    /**
     * @return -v.
     */
    public boolean verbose()
    {
        return verbose;
    }

    /**
     * @return -V.
     */
    public boolean validate()
    {
        return validate;
    }

    /**
     * @return -d.
     */
    public boolean debug()
    {
        return debug;
    }

    /**
     * @return --handshake-timeout in seconds; 0 waits for ever.
     */
    public int handshakeSeconds()
    {
        return handshakeSeconds;
    }

    /**
     * @return -P.
     */
    public boolean persistent()
    {
        return persistent;
    }

    /**
     * @return rping's return value as an exit status (0..255).
     */
    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final RpingOutput output = new RpingOutput(out, err, debug);
        return exitStatus(run(output));
    }

    private int run(final RpingOutput output)
    {
        if (size < MIN_SIZE || size > BUFSIZE - 1)
        {
            output.err("Invalid size %d (valid range is %d to %d)", size, MIN_SIZE, BUFSIZE);
            return Errno.EINVAL.code();
        }
        if (count < 0)
        {
            output.err("Invalid count %d", count);
            return Errno.EINVAL.code();
        }
        if (role == Role.NONE)
        {
            final PrintWriter out = spec.commandLine().getOut();
            spec.commandLine().usage(out);
            out.flush();
            return Errno.EINVAL.code();
        }
        final boolean server = role == Role.SERVER;
        final InetSocketAddress target;
        final InetSocketAddress source;
        try
        {
            target = new InetSocketAddress(address == null ? InetAddress.ofLiteral("0.0.0.0") :
                InetAddress.getByName(address), port & 0xFFFF);
            source = sourceAddress == null ? null : new InetSocketAddress(InetAddress.getByName(sourceAddress), 0);
        }
        catch (final UnknownHostException ex)
        {
            output.out("getaddrinfo failed (%s) - invalid hostname or IP address", "Name or service not known");
            // EAI_NONAME
            return -2;
        }
        if (!server && source == null)
        {
            // a client with no -I whose server is on this machine takes a free 127.0.0.x of its own
            SoftAddress.configure(null, target.getAddress().getHostAddress());
        }
        final RpingConnection cb = new RpingConnection(server, size, count, verbose, validate, selfCreatedQp, output);
        final EventChannel channel;
        try
        {
            channel = DeviceOption.eventChannel(deviceName);
        }
        catch (final RdmaException ex)
        {
            output.err("Failed to create event channel: %s", ex.getMessage());
            return ex.errnoCode();
        }
        try
        {
            return new RpingSession(cb, target, source, persistent, handshakeSeconds, output).run(channel);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            output.err("rping: interrupted");
            return Errno.EINTR.code();
        }
    }

    /**
     * @param ret a C main's return value.
     * @return the exit status a process returning it has.
     */
    static int exitStatus(final int ret)
    {
        return ret & 0xFF;
    }
}
