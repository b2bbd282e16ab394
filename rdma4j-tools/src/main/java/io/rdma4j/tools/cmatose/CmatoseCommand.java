package io.rdma4j.tools.cmatose;

import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.tools.common.CNumber;
import io.rdma4j.tools.common.DeviceOption;
import io.rdma4j.tools.common.SoftAddress;
import io.rdma4j.tools.common.HandshakeDeadlines;
import io.rdma4j.tools.common.WaitClock;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code rdma4j cmatose}: librdmacm's cmatose, which rdma-core installs as {@code ucmatose}. The
 * client sets up {@code -c} RC connections at once; the server accepts them, sends {@code -C}
 * messages of {@code -S} bytes on each and waits for as many back, then disconnects them all. Flags,
 * output lines and the "return status" line are cmatose's; the exit status is its return value as
 * a process sees it (0 on success; 1 for bad arguments).
 */
@Command(name = "cmatose", aliases = "ucmatose", mixinStandardHelpOptions = true, sortOptions = false,
    exitCodeOnInvalidInput = 1,
    description = "RC connections set up through the connection manager, messages both ways on each, "
        + "like librdmacm's cmatose (installed by rdma-core as ucmatose).")
public final class CmatoseCommand implements Callable<Integer>
{
    /** The port cmatose listens on and connects to unless -p says otherwise. */
    public static final int PORT = 7471;

    @Spec
    private CommandSpec spec;

    @Option(order = 1, names = "-s", paramLabel = "server_address",
        description = "the server to connect to (client mode); without it, run the server")
    private String serverAddress;

    @Option(order = 2, names = "-b", paramLabel = "bind_address", description = "local address to bind to")
    private String bindAddress;

    @Option(order = 3, names = "-f", paramLabel = "address_format",
        description = "how -s and -b are given: name (default), ip, ipv6, or gid (AF_IB: not on RoCE)")
    private String addressFormat;

    private PortSpace portSpace = PortSpace.TCP;

    @Option(order = 5, names = "-c", paramLabel = "connections", defaultValue = "1", converter = CNumber.class,
        description = "connections to set up (default ${DEFAULT-VALUE})")
    private int connections;

    @Option(order = 6, names = "-C", paramLabel = "message_count", defaultValue = "10", converter = CNumber.class,
        description = "messages each way per connection (default ${DEFAULT-VALUE})")
    private int count;

    @Option(order = 7, names = "-S", paramLabel = "message_size", defaultValue = "100", converter = CNumber.class,
        description = "message size in bytes (default ${DEFAULT-VALUE})")
    private int size;

    private Integer tos;

    @Option(order = 9, names = "-p", paramLabel = "port_number", defaultValue = "" + PORT, converter = CNumber.class,
        description = "the port to listen on or connect to (default ${DEFAULT-VALUE})")
    private int port;

    @Option(order = 10, names = "-m", description = "migrate the ids to a new event channel before the disconnect "
        + "(the rdma4j CM has no rdma_migrate_id: fails as cmatose does when migrating fails)")
    private boolean migrate;

    private Integer ackTimeout;

    @Option(order = 13, names = "-d", paramLabel = "device", description = "rdma4j: use this device's engine "
        + "(default: the engine of the bind or resolved address)")
    private String deviceName;

    @Option(order = 14, names = "--timeout", paramLabel = "seconds", defaultValue = "0", converter = CNumber.class,
        description = "rdma4j: give up waiting for events or completions after this long (default 0: wait "
            + "for ever, as cmatose)")
    private int timeoutSeconds;

    @Option(order = 16, names = "--handshake-timeout", paramLabel = "seconds",
        defaultValue = HandshakeDeadlines.DEFAULT_SECONDS, converter = CNumber.class,
        description = "rdma4j: server: a connection request accepted but not established within this long is "
            + "dropped and its slot given to the next request (default ${DEFAULT-VALUE}; 0: keep it for ever, as "
            + "cmatose)")
    private int handshakeSeconds;

    @Option(order = 15, names = "--debug", description = "rdma4j: trace CM events, say when the server listens "
        + "and what each connection received")
    private boolean debug;

    /**
     * @param text -P: {@code tcp} or {@code ib}.
     */
    @Option(order = 4, names = "-P", paramLabel = "port_space", description = "port space: tcp (default) or ib")
    void portSpaceName(final String text)
    {
        final String lower = text.toLowerCase(Locale.ROOT);
        if (lower.startsWith("ib"))
        {
            portSpace = PortSpace.IB;
        }
        else if (!lower.startsWith("tcp"))
        {
            spec.commandLine().getErr().println("Warning: unknown port space format");
            spec.commandLine().getErr().flush();
        }
    }

    /**
     * @param value -t: the type of service, a byte as cmatose's uint8_t.
     */
    @Option(order = 8, names = "-t", paramLabel = "type_of_service", converter = CNumber.class,
        description = "type of service (the rdma4j CM has no rdma_set_option: warns, as cmatose when setting "
            + "it fails, and goes on)")
    void typeOfService(final int value)
    {
        tos = value & 0xFF;
    }

    /**
     * @param value -a: the QP's ACK timeout exponent, a byte as cmatose's uint8_t.
     */
    @Option(order = 11, names = "-a", paramLabel = "ack_timeout", converter = CNumber.class,
        description = "QP ACK timeout, 4.096 us * 2^ack_timeout (the rdma4j CM has no rdma_set_option: warns, "
            + "as cmatose when setting it fails, and goes on)")
    void ackTimeout(final int value)
    {
        ackTimeout = value & 0xFF;
    }

    /**
     * @return -s, or null for a server.
     */
    public String serverAddress()
    {
        return serverAddress;
    }

    /**
     * @return -b, or null.
     */
    public String bindAddress()
    {
        return bindAddress;
    }

    /**
     * @return -f, or null for name.
     */
    public String addressFormat()
    {
        return addressFormat;
    }

    /**
     * @return -P.
     */
    public PortSpace portSpace()
    {
        return portSpace;
    }

    /**
     * @return -c.
     */
    public int connections()
    {
        return connections;
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
     * @return -t, or null when not given.
     */
    public Integer tos()
    {
        return tos;
    }

    /**
     * @return -a, or null when not given.
     */
    public Integer ackTimeout()
    {
        return ackTimeout;
    }

    /**
     * @return -p.
     */
    public int port()
    {
        return port;
    }

    /**
     * @return -m.
     */
    public boolean migrate()
    {
        return migrate;
    }

    /**
     * @return --handshake-timeout in seconds; 0 keeps a slot for ever.
     */
    public int handshakeSeconds()
    {
        return handshakeSeconds;
    }

    /**
     * @return --timeout in seconds; 0 waits for ever.
     */
    public int timeoutSeconds()
    {
        return timeoutSeconds;
    }

    boolean debug()
    {
        return debug;
    }

    /**
     * @return cmatose's return value as an exit status (0..255).
     */
    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        if (connections < 1 || count < 0 || size < 0)
        {
            // cmatose would allocate a negative node array or buffer; refuse what it cannot do
            err.printf("cmatose: -c must be at least 1 and -C, -S at least 0 (got %d, %d, %d)%n", connections, count,
                size);
            err.flush();
            return 1;
        }
        if (serverAddress != null && bindAddress == null)
        {
            // a client with no -b whose server is on this machine takes a free 127.0.0.x of its own
            SoftAddress.configure(null, serverAddress);
        }
        final EventChannel channel;
        try
        {
            channel = DeviceOption.eventChannel(deviceName);
        }
        catch (final RdmaException ex)
        {
            err.printf("Failed to create event channel: %s%n", ex.getMessage());
            err.flush();
            return 1;
        }
        final CmatoseRun run = new CmatoseRun(this, channel, out, err, new WaitClock(timeoutSeconds));
        int ret;
        try
        {
            ret = serverAddress != null ? run.runClient() : run.runServer();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            ret = -Errno.EINTR.code();
        }
        catch (final RdmaException ex)
        {
            out.printf("cmatose: %s%n", ex.getMessage());
            ret = -ex.errnoCode();
        }
        out.println("test complete");
        out.flush();
        run.destroyNodes();
        try
        {
            channel.close();
        }
        catch (final RdmaException ex)
        {
            err.printf("cmatose: destroying the event channel: %s%n", ex.getMessage());
        }
        out.printf("return status %d%n", ret);
        out.flush();
        err.flush();
        return ret & 0xFF;
    }
}
