package io.rdma4j.tools.pingpong;

import io.rdma4j.tools.ChildJvm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A pingpong tool in a JVM of its own, its output collected line by line; the first "local
 * address" line is the readiness signal (the server prints it once its TCP port is bound).
 */
final class PingPongProcess
{
    private final String role;
    private final Process process;
    private final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    private final CompletableFuture<Boolean> ready = new CompletableFuture<>();
    private final Thread reader;

    private PingPongProcess(final String role, final Process process)
    {
        this.role = role;
        this.process = process;
        this.reader = Thread.ofPlatform().daemon().name("pp-" + role).start(this::pump);
    }

    /**
     * @param role its name in the test output.
     * @param args the rdma4j arguments.
     * @return the running child.
     * @throws IOException if it cannot be started.
     */
    static PingPongProcess start(final String role, final List<String> args) throws IOException
    {
        return start(role, args, Map.of());
    }

    /**
     * @param role        its name in the test output.
     * @param args        the rdma4j arguments.
     * @param environment variables to add to the child's environment.
     * @return the running child.
     * @throws IOException if it cannot be started.
     */
    static PingPongProcess start(final String role, final List<String> args, final Map<String, String> environment)
        throws IOException
    {
        final ProcessBuilder builder = ChildJvm.main(args);
        builder.environment().putAll(environment);
        return new PingPongProcess(role, builder.start());
    }

    private void pump()
    {
        try (BufferedReader in = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                lines.add(line);
                System.out.printf("[%-6s] %s%n", role, line);
                if (line.startsWith("  local address:"))
                {
                    ready.complete(true);
                }
            }
        }
        catch (final IOException ex)
        {
            System.out.printf("[%-6s] output lost: %s%n", role, ex.getMessage());
        }
        finally
        {
            ready.complete(false);
        }
    }

    /**
     * @return completes true on the first local address line, false if the output ends first.
     */
    CompletableFuture<Boolean> ready()
    {
        return ready;
    }

    /**
     * @return every line so far, stdout and stderr merged.
     */
    List<String> lines()
    {
        synchronized (lines)
        {
            return List.copyOf(lines);
        }
    }

    /**
     * @param timeout how long to wait.
     * @param unit    its unit.
     * @return the exit status, or -1 if it had to be killed.
     * @throws InterruptedException if interrupted.
     */
    int await(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        if (!process.waitFor(timeout, unit))
        {
            destroy();
            return -1;
        }
        reader.join(TimeUnit.SECONDS.toMillis(5));
        return process.exitValue();
    }

    /**
     * Kill the child if it still runs.
     */
    void destroy()
    {
        if (process.isAlive())
        {
            process.destroyForcibly();
            try
            {
                process.waitFor(5, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
