package io.rdma4j.tools.ep;

import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.ep.AddrInfo;
import io.rdma4j.cm.ep.AddrInfoException;
import io.rdma4j.cm.ep.Endpoint;
import io.rdma4j.tools.common.CNumber;
import io.rdma4j.tools.common.SoftAddress;
import io.rdma4j.verbs.RdmaException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;

import static io.rdma4j.tools.ep.EpRun.say;

/**
 * {@code rdma4j rdma_client}: librdmacm's rdma_client. An active endpoint connects to {@code -s}:{@code -p},
 * sends one 16-byte message and waits for the server's answer, then disconnects. Flags, output
 * ("rdma_client: start", "rdma_client: end N") and exit status are rdma-core 44's; a completion in error fails
 * the run, where the C tool ends 0 without looking.
 */
@Command(name = "rdma_client", mixinStandardHelpOptions = true, sortOptions = false, exitCodeOnInvalidInput = 1,
    description = "Connect over RC and exchange one 16-byte message, with librdmacm's synchronous endpoint calls, "
        + "like librdmacm's rdma_client.")
public final class RdmaClientCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(order = 1, names = "-s", paramLabel = "server_address", defaultValue = "127.0.0.1",
        description = "the server to connect to (default ${DEFAULT-VALUE})")
    private String server;

    @Option(order = 2, names = "-p", paramLabel = "port_number", defaultValue = EpRun.PORT,
        description = "the server's port (default ${DEFAULT-VALUE})")
    private String port;

    @Option(order = 3, names = "-b", paramLabel = "bind_address", description = "rdma4j: local address to connect "
        + "from (default: a free 127.0.0.x of its own when the server is on this machine, else the route's)")
    private String bindAddress;

    @Option(order = 4, names = "--timeout", paramLabel = "seconds", defaultValue = "0", converter = CNumber.class,
        description = "rdma4j: give up waiting for a completion after this long (default 0: wait for ever, as "
            + "rdma_client)")
    private int timeoutSeconds;

    private PrintWriter out;
    private PrintWriter err;

    /**
     * @return rdma_client's return value as an exit status (0..255).
     */
    @Override
    public Integer call()
    {
        out = spec.commandLine().getOut();
        err = spec.commandLine().getErr();
        return EpRun.startToEnd(out, "rdma_client", this::run);
    }

    private int run() throws InterruptedException
    {
        AddrInfo info;
        try
        {
            info = AddrInfo.get(server, port, false, PortSpace.TCP);
            if (bindAddress != null)
            {
                info = info.withSource(new InetSocketAddress(InetAddress.getByName(bindAddress), 0));
            }
        }
        catch (final AddrInfoException ex)
        {
            say(out, "rdma_getaddrinfo: %s", ex.gaiMessage());
            return ex.gaiCode();
        }
        catch (final java.net.UnknownHostException ex)
        {
            say(out, "rdma_getaddrinfo: %s", "Name or service not known");
            return AddrInfoException.EAI_NONAME;
        }
        if (bindAddress == null)
        {
            // a client whose server is on this machine takes a free 127.0.0.x of its own
            SoftAddress.configure(null, server);
        }
        final EpRun run = new EpRun("rdma_client", out, err, timeoutSeconds);
        final Endpoint ep;
        try
        {
            ep = Endpoint.create(info, null, EpRun.qpAttr());
        }
        catch (final RdmaException ex)
        {
            run.close();
            return run.failed("rdma_create_ep", ex);
        }
        try
        {
            return exchange(run, ep);
        }
        finally
        {
            run.close();
            run.destroy(ep);
        }
    }

    private int exchange(final EpRun run, final Endpoint ep) throws InterruptedException
    {
        final int prepared = run.prepare(ep);
        if (prepared != 0)
        {
            return prepared;
        }
        try
        {
            ep.connect(null);
        }
        catch (final RdmaException ex)
        {
            return run.failed("rdma_connect", ex);
        }
        int ret = run.sendMessage(ep);
        if (ret == 0)
        {
            ret = run.completion(ep, false);
        }
        run.disconnect(ep);
        return ret;
    }
}
