package io.rdma4j.tools;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * An rdma4j tool in a JVM of its own (stdout and stderr merged), its output collected line by
 * line and echoed with its role, and one future completed by the first line a test waits for.
 */
final class ToolProcess
{
    private final String role;
    private final Process process;
    private final Predicate<String> readyLine;
    private final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    private final CompletableFuture<Boolean> ready = new CompletableFuture<>();
    private final Thread reader;

    private ToolProcess(final String role, final Process process, final Predicate<String> readyLine)
    {
        this.role = role;
        this.process = process;
        this.readyLine = readyLine;
        this.reader = Thread.ofPlatform().daemon().name("tool-" + role).start(this::pump);
    }

    /**
     * @param role      its name in the test output.
     * @param args      the rdma4j arguments.
     * @param readyLine the line that completes {@link #ready()}.
     * @return the running child.
     * @throws IOException if it cannot be started.
     */
    static ToolProcess start(final String role, final List<String> args, final Predicate<String> readyLine)
        throws IOException
    {
        return new ToolProcess(role, ChildJvm.main(args).start(), readyLine);
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
                System.out.printf("[%-8s] %s%n", role, line);
                if (readyLine.test(line))
                {
                    ready.complete(true);
                }
            }
        }
        catch (final IOException ex)
        {
            System.out.printf("[%-8s] output lost: %s%n", role, ex.getMessage());
        }
        finally
        {
            ready.complete(false);
        }
    }

    /**
     * @return completes true on the ready line, false if the output ends first.
     */
    CompletableFuture<Boolean> ready()
    {
        return ready;
    }

    /**
     * @return every line so far.
     */
    List<String> lines()
    {
        synchronized (lines)
        {
            return List.copyOf(lines);
        }
    }

    /**
     * @param wanted which lines to count.
     * @return how many lines so far match.
     */
    long count(final Predicate<String> wanted)
    {
        return lines().stream().filter(wanted).count();
    }

    /**
     * Wait until {@code n} lines match, the child ends, or the time is up.
     *
     * @return true if {@code n} lines matched.
     */
    boolean awaitLines(final Predicate<String> wanted, final long n, final long timeout, final TimeUnit unit)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (count(wanted) < n)
        {
            if (!process.isAlive() || System.nanoTime() - deadline > 0)
            {
                reader.join(TimeUnit.SECONDS.toMillis(5));
                return count(wanted) >= n;
            }
            // polls the collected output: nothing to be woken by
            Thread.sleep(50);
        }
        return true;
    }

    /**
     * @return true while the child runs.
     */
    boolean isAlive()
    {
        return process.isAlive();
    }

    /**
     * @return the exit status, or -1 if it had to be killed.
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
