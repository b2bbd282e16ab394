package io.rdma4j.tools.pingpong;

import io.rdma4j.tools.ToolProcess;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A pingpong tool as two processes, server then client, each with its own soft device: the client
 * starts only once the server has printed its local address line (its TCP port is bound by then),
 * and both must exit 0. Kills whatever still runs on {@link #close()}.
 */
final class PingPongPair implements AutoCloseable
{
    /** What each side printed. */
    record Outputs(List<String> server, List<String> client)
    {
    }

    private final List<ToolProcess> children = new ArrayList<>();
    private final Map<String, String> environment;

    private PingPongPair(final Map<String, String> environment)
    {
        this.environment = environment;
    }

    /**
     * @return a pair run in the test's environment.
     */
    static PingPongPair plain()
    {
        return new PingPongPair(Map.of());
    }

    /**
     * @param environment variables added to both children's environments.
     * @return a pair run with them.
     */
    static PingPongPair withEnvironment(final Map<String, String> environment)
    {
        return new PingPongPair(environment);
    }

    /**
     * @param server the server's whole command line.
     * @param client the client's whole command line.
     * @return both outputs, once both exited 0.
     */
    Outputs run(final List<String> server, final List<String> client) throws Exception
    {
        final ToolProcess s = start("server", server);
        assertTrue(s.ready().get(60, TimeUnit.SECONDS), "the server printed no local address: " + s.lines());
        final ToolProcess c = start("client", client);
        assertEquals(0, c.await(120, TimeUnit.SECONDS), "client exit status; its output: " + c.lines());
        assertEquals(0, s.await(60, TimeUnit.SECONDS), "server exit status; its output: " + s.lines());
        return new Outputs(s.lines(), c.lines());
    }

    private ToolProcess start(final String role, final List<String> args) throws IOException
    {
        final ToolProcess child = ToolProcess.start(role, args, line -> line.startsWith("  local address:"),
            environment);
        children.add(child);
        return child;
    }

    @Override
    public void close()
    {
        children.forEach(ToolProcess::destroy);
    }
}
