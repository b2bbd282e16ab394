package io.rdma4j.tools.pingpong;

import io.rdma4j.tools.common.CNumber;
import io.rdma4j.tools.common.SoftAddress;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.RdmaException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * What the four pingpong commands share: rdma-core's common flags, the server/client choice by
 * positional argument, the soft device's address, and running a {@link PingPongSession} with
 * rdma-core's messages and exit status (0 on success, 1 on any failure).
 */
public abstract class PingPongCommand implements Callable<Integer>
{
    /** rdma-core's default TCP port. */
    public static final int DEFAULT_PORT = 18515;

    @Spec
    private CommandSpec spec;

    @Option(names = {"-p", "--port"}, paramLabel = "<port>", defaultValue = "18515", converter = CNumber.class,
        description = "listen on/connect to port <port> (default 18515)")
    private int port;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "<dev>",
        description = "use IB device <dev> (default first device found)")
    private String deviceName;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "<port>", defaultValue = "1", converter = CNumber.class,
        description = "use port <port> of IB device (default 1)")
    private int ibPort;

    @Option(names = {"-r", "--rx-depth"}, paramLabel = "<dep>", defaultValue = "500", converter = CNumber.class,
        description = "number of receives to post at a time (default 500)")
    private int rxDepth;

    @Option(names = {"-n", "--iters"}, paramLabel = "<iters>", defaultValue = "1000", converter = CNumber.class,
        description = "number of exchanges (default 1000)")
    private int iters;

    @Option(names = "--warmup", paramLabel = "<iters>", defaultValue = "0", converter = CNumber.class,
        description = "rdma4j: exchanges before the timed ones, not counted in the rate (default 0, as rdma-core: "
            + "the rate then includes the JIT's warm-up). The peer must make as many exchanges in all: the same -n "
            + "and --warmup, or a -n of this side's sum")
    private int warmup;

    @Option(names = {"-l", "--sl"}, paramLabel = "<sl>", defaultValue = "0", converter = CNumber.class,
        description = "service level value")
    private int sl;

    @Option(names = {"-e", "--events"}, description = "sleep on CQ events (default poll)")
    private boolean events;

    @Option(names = {"-g", "--gid-idx"}, paramLabel = "<gid index>", defaultValue = "0", converter = CNumber.class,
        description = "local port gid index (default 0 here: RoCE needs a GRH, so unlike rdma-core's -1 "
            + "the soft device sends its GID unless told -1; run the rdma-core peer with -g 0 too)")
    private int gidIndex;

    @Option(names = {"-c", "--chk"}, description = "validate received buffer (as rdma-core: the client zeroes the "
        + "first byte of each 4 KiB page, the server reports pages where it is not zero)")
    private boolean validate;

    @Option(names = "--address", paramLabel = "A", description = "rdma4j: the soft device's IPv4 address for this "
        + "process (sets rdma4j.soft.address; default 127.0.0.1, or for a client of a server on this machine the "
        + "first free 127.0.0.x from 127.0.0.2)")
    private String address;

    @Parameters(arity = "0..1", paramLabel = "<host>",
        description = "connect to server at <host>; without it, start a server and wait for connection")
    private String serverName;

    /**
     * @return which tool this is.
     */
    protected abstract PingPongKind kind();

    /**
     * @return -s, bytes per message.
     */
    protected abstract int size();

    /**
     * @return -m as given in bytes, or 1024 for tools without it.
     */
    protected abstract int mtuBytes();

    /**
     * @return -q for srq_pingpong, 1 for the others.
     */
    protected int numQp()
    {
        return 1;
    }

    /**
     * @return rdma-core's message for a flag asking for what the device cannot do, or null. Called
     * before anything is opened for the combinations rdma-core checks first; the device-dependent
     * part is {@link #unsupportedByDevice()}.
     */
    protected String invalidCombination()
    {
        return null;
    }

    /**
     * @return rdma-core's message for a requested device feature the soft device lacks (ODP,
     * completion timestamps, device memory), or null.
     */
    protected String unsupportedByDevice()
    {
        return null;
    }

    /**
     * @return a message to refuse the arguments with, after usage, or null; srq_pingpong checks its
     * QP count here.
     */
    protected String argumentProblem()
    {
        return null;
    }

    /**
     * @return the parsed configuration.
     */
    public PingPongConfig config()
    {
        return new PingPongConfig(kind(), deviceName, ibPort, port, size(), Mtu.fromBytes(mtuBytes()), rxDepth, iters,
            warmup, sl, events, gidIndex, validate, numQp(), serverName, unsupportedByDevice());
    }

    /**
     * @return -r, receives posted at a time.
     */
    protected int rxDepth()
    {
        return rxDepth;
    }

    /**
     * @return --address, or null.
     */
    public String address()
    {
        return address;
    }

    /**
     * @return 0 when the ping-pong completed, 1 otherwise.
     */
    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        if (port < 0 || port > 65535 || ibPort < 1 || warmup < 0 || !validMtu(mtuBytes()))
        {
            // rdma-core prints its usage and exits 1 for these.
            spec.commandLine().usage(out);
            out.flush();
            return 1;
        }
        final String problem = argumentProblem() != null ? argumentProblem() : invalidCombination();
        if (problem != null)
        {
            err.println(problem);
            err.flush();
            return 1;
        }
        int status = 0;
        PingPongSession session = null;
        try
        {
            SoftAddress.configure(address, serverName);
            session = new PingPongSession(config(), out);
            session.run();
        }
        catch (final PingPongException ex)
        {
            err.println(ex.getMessage());
            status = 1;
        }
        catch (final RdmaException ex)
        {
            err.println(kind().toolName() + ": " + ex.getMessage());
            status = 1;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            err.println(kind().toolName() + ": interrupted");
            status = 1;
        }
        finally
        {
            if (session != null)
            {
                try
                {
                    session.close();
                }
                catch (final PingPongException ex)
                {
                    if (status == 0)
                    {
                        err.println(ex.getMessage());
                        status = 1;
                    }
                }
            }
            out.flush();
            err.flush();
        }
        return status;
    }

    private static boolean validMtu(final int bytes)
    {
        try
        {
            Mtu.fromBytes(bytes);
            return true;
        }
        catch (final RdmaException ex)
        {
            return false;
        }
    }
}
