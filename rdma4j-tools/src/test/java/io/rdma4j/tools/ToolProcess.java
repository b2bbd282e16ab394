package io.rdma4j.tools;

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
import java.util.function.Predicate;

/**
 * An rdma4j tool in a JVM of its own (stdout and stderr merged), its output collected line by
 * line and echoed with its role, and one future completed by the first line a test waits for.
 */
public final class ToolProcess
{
    private final String role;
    private final Process process;
    private final Predicate<String> readyLine;
    private final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    private final CompletableFuture<Boolean> ready = new CompletableFuture<>();
    private final Thread reader;
    /** Set, under the lines' lock, once the child's output has ended. */
    private boolean outputEnded;

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
    public static ToolProcess start(final String role, final List<String> args, final Predicate<String> readyLine)
        throws IOException
    {
        return start(role, args, readyLine, Map.of());
    }

    /**
     * @param role        its name in the test output.
     * @param args        the rdma4j arguments.
     * @param readyLine   the line that completes {@link #ready()}.
     * @param environment variables to add to the child's environment.
     * @return the running child.
     * @throws IOException if it cannot be started.
     */
    public static ToolProcess start(final String role, final List<String> args, final Predicate<String> readyLine,
        final Map<String, String> environment) throws IOException
    {
        final ProcessBuilder builder = ChildJvm.main(args);
        builder.environment().putAll(environment);
        return new ToolProcess(role, builder.start(), readyLine);
    }

    private void pump()
    {
        try (BufferedReader in = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                synchronized (lines)
                {
                    lines.add(line);
                    lines.notifyAll();
                }
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
            synchronized (lines)
            {
                outputEnded = true;
                lines.notifyAll();
            }
        }
    }

    /**
     * @return completes true on the ready line, false if the output ends first.
     */
    public CompletableFuture<Boolean> ready()
    {
        return ready;
    }

    /**
     * @return every line so far.
     */
    public List<String> lines()
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
    public long count(final Predicate<String> wanted)
    {
        return lines().stream().filter(wanted).count();
    }

    /**
     * Wait until {@code n} lines match, the child ends, or the time is up.
     *
     * @return true if {@code n} lines matched.
     */
    public boolean awaitLines(final Predicate<String> wanted, final long n, final long timeout, final TimeUnit unit)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lines)
        {
            // the reader thread notifies on every line and when the output ends
            while (count(wanted) < n)
            {
                final long remaining = deadline - System.nanoTime();
                if (outputEnded || remaining <= 0)
                {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lines, remaining);
            }
            return true;
        }
    }

    /**
     * @return the child's process id.
     */
    public long pid()
    {
        return process.pid();
    }

    /**
     * @return true while the child runs.
     */
    public boolean isAlive()
    {
        return process.isAlive();
    }

    /**
     * @return the exit status, or -1 if it had to be killed.
     */
    public int await(final long timeout, final TimeUnit unit) throws InterruptedException
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
     * Stop the child as kill(1) or a terminal's Ctrl-C does: it gets SIGTERM, and its shutdown
     * hooks run. {@link #await} then gives its exit status.
     */
    public void terminate()
    {
        process.destroy();
    }

    /**
     * Kill the child if it still runs.
     */
    public void destroy()
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
