package io.rdma4j.tools.ep;

import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.ep.AddrInfo;
import io.rdma4j.cm.ep.AddrInfoException;
import io.rdma4j.cm.ep.Endpoint;
import io.rdma4j.tools.common.CNumber;
import io.rdma4j.verbs.RdmaException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import static io.rdma4j.tools.ep.EpRun.say;

/**
 * {@code rdma4j rdma_server}: librdmacm's rdma_server. A passive endpoint on {@code -s}:{@code -p} takes one
 * connection request, receives the client's 16-byte message and sends it back, then disconnects. Flags, output
 * ("rdma_server: start", "rdma_server: end N") and exit status (N as a process sees it) are rdma-core 44's;
 * a completion in error fails the run, where the C tool ends 0 without looking. A request accepted but not
 * established within {@code --handshake-timeout} (10 s by default) is dropped and the next one taken, where
 * rdma_server waits for ever on the one it took.
 */
@Command(name = "rdma_server", mixinStandardHelpOptions = true, sortOptions = false, exitCodeOnInvalidInput = 1,
    description = "Take one RC connection and echo one 16-byte message, with librdmacm's synchronous endpoint "
        + "calls, like librdmacm's rdma_server.")
public final class RdmaServerCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(order = 1, names = "-s", paramLabel = "server_address", defaultValue = "0.0.0.0",
        description = "address to listen on (default ${DEFAULT-VALUE})")
    private String server;

    @Option(order = 2, names = "-p", paramLabel = "port_number", defaultValue = EpRun.PORT,
        description = "port to listen on (default ${DEFAULT-VALUE})")
    private String port;

    @Option(order = 3, names = "--timeout", paramLabel = "seconds", defaultValue = "0", converter = CNumber.class,
        description = "rdma4j: give up waiting for the request or a completion after this long (default 0: wait "
            + "for ever, as rdma_server)")
    private int timeoutSeconds;

    @Option(order = 4, names = "--handshake-timeout", paramLabel = "seconds",
        defaultValue = EpRun.HANDSHAKE_TIMEOUT, converter = CNumber.class,
        description = "rdma4j: a connection request accepted but not established within this long (a peer that "
            + "never sends its RTU) is dropped, and the server takes the next request (default ${DEFAULT-VALUE}; "
            + "0: wait for ever, as rdma_server)")
    private int handshakeSeconds;

    @Option(order = 5, names = "--debug", description = "rdma4j: say when the server listens")
    private boolean debug;

    private PrintWriter out;
    private PrintWriter err;

    /**
     * @return rdma_server's return value as an exit status (0..255).
     */
    @Override
    public Integer call()
    {
        out = spec.commandLine().getOut();
        err = spec.commandLine().getErr();
        return EpRun.startToEnd(out, "rdma_server", this::run);
    }

    private int run() throws InterruptedException
    {
        final AddrInfo info;
        try
        {
            info = AddrInfo.get(server, port, true, PortSpace.TCP);
        }
        catch (final AddrInfoException ex)
        {
            say(out, "rdma_getaddrinfo: %s", ex.gaiMessage());
            return ex.gaiCode();
        }
        final EpRun run = new EpRun("rdma_server", out, err, timeoutSeconds);
        final Endpoint listenEp;
        try
        {
            listenEp = Endpoint.create(info, null, EpRun.qpAttr());
        }
        catch (final RdmaException ex)
        {
            run.close();
            return run.failed("rdma_create_ep", ex);
        }
        Endpoint ep = null;
        try
        {
            try
            {
                listenEp.listen(0);
            }
            catch (final RdmaException ex)
            {
                return run.failed("rdma_listen", ex);
            }
            if (debug)
            {
                final InetSocketAddress local = listenEp.localAddress();
                say(out, "rdma_server: listening on %s:%d", local.getAddress().getHostAddress(), local.getPort());
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            while (true)
            {
                final long left = timeoutSeconds > 0 ? Math.max(0, deadline - System.nanoTime()) : -1;
                try
                {
                    ep = listenEp.getRequest(left, TimeUnit.NANOSECONDS);
                    if (ep == null)
                    {
                        say(err, "rdma_get_request: ETIMEDOUT: no connection request within %d s", timeoutSeconds);
                        return -1;
                    }
                }
                catch (final RdmaException ex)
                {
                    return run.failed("rdma_get_request", ex);
                }
                final int prepared = run.prepare(ep);
                if (prepared != 0)
                {
                    return prepared;
                }
                // a request that is never established (no RTU) must not hold the one client this server takes
                if (accepted(run, ep))
                {
                    return serve(run, ep);
                }
                run.deregister();
                run.destroy(ep);
                ep = null;
            }
        }
        finally
        {
            run.close();
            run.destroy(ep);
            run.destroy(listenEp);
        }
    }

    /**
     * rdma_accept, waiting at most --handshake-timeout for the connection to be established.
     *
     * @return true once established; false if it was not in time or failed (said on stderr): the server drops
     *     it and takes the next request.
     */
    private boolean accepted(final EpRun run, final Endpoint ep) throws InterruptedException
    {
        try
        {
            if (ep.accept(null, handshakeSeconds > 0 ? handshakeSeconds : -1, TimeUnit.SECONDS))
            {
                return true;
            }
            say(err, "rdma_accept: ETIMEDOUT: the connection was not established within %d s; dropping it and "
                + "taking the next request", handshakeSeconds);
        }
        catch (final RdmaException ex)
        {
            run.failed("rdma_accept", ex);
        }
        return false;
    }

    private int serve(final EpRun run, final Endpoint ep) throws InterruptedException
    {
        int ret = run.completion(ep, false);
        if (ret == 0)
        {
            // the message goes back as it came
            run.sendMsg().copyFrom(run.recvMsg());
            ret = run.sendMessage(ep);
        }
        run.disconnect(ep);
        return ret;
    }
}
