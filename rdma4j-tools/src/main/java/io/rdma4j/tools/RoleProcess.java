package io.rdma4j.tools;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A child mckey process with a role: its output read line by line on a thread of its own, passed
 * on prefixed with the role, watched for the "joined" line and the summary line.
 */
public final class RoleProcess
{
    private final String role;
    private final String address;
    private final Process process;
    private final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    private final CompletableFuture<Boolean> joined = new CompletableFuture<>();
    private final Map<String, String> summary = Collections.synchronizedMap(new HashMap<>());
    private final Thread reader;

    private RoleProcess(final String role, final String address, final Process process, final Consumer<String> sink)
    {
        this.role = role;
        this.address = address;
        this.process = process;
        this.reader = Thread.ofPlatform().daemon().name("out-" + role).start(() -> pump(sink));
    }

    /**
     * Start a child running {@link Main} with {@code args}.
     *
     * @param role    its name in the output, e.g. {@code receiver-1}.
     * @param address the address it binds to, for the report.
     * @param args    the rdma4j arguments.
     * @param sink    where its prefixed lines go.
     * @return the running child.
     * @throws IOException if it cannot be started.
     */
    public static RoleProcess start(
        final String role, final String address, final List<String> args, final Consumer<String> sink)
        throws IOException
    {
        return new RoleProcess(role, address, ChildJvm.main(args).start(), sink);
    }

    private void pump(final Consumer<String> sink)
    {
        try (BufferedReader in = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                lines.add(line);
                sink.accept(String.format("[%-10s] %s", role, line));
                if (line.startsWith("mckey: joined"))
                {
                    joined.complete(true);
                }
                else if (line.startsWith("mckey: summary"))
                {
                    parseSummary(line);
                }
            }
        }
        catch (final IOException ex)
        {
            sink.accept("[" + role + "] output lost: " + ex.getMessage());
        }
        finally
        {
            joined.complete(false);
        }
    }

    private void parseSummary(final String line)
    {
        for (final String word : line.split(" "))
        {
            final int eq = word.indexOf('=');
            if (eq > 0)
            {
                summary.put(word.substring(0, eq), word.substring(eq + 1));
            }
        }
    }

    /**
     * @return the role name.
     */
    public String role()
    {
        return role;
    }

    /**
     * @return the address it binds to.
     */
    public String address()
    {
        return address;
    }

    /**
     * @return completes true on the child's "joined" line, false if its output ends first.
     */
    public CompletableFuture<Boolean> joined()
    {
        return joined;
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
     * @param key e.g. {@code unique} or {@code p99_us}.
     * @return that summary value, or -1 when there was no summary or no such value.
     */
    public long summaryValue(final String key)
    {
        final String value = summary.get(key);
        return value == null ? -1 : Long.parseLong(value);
    }

    /**
     * @return true once a summary line was seen.
     */
    public boolean hasSummary()
    {
        return !summary.isEmpty();
    }

    /**
     * Close the child's stdin: tells a {@code --stop-on-stdin} receiver to stop.
     */
    public void closeStdin()
    {
        try
        {
            process.getOutputStream().close();
        }
        catch (final IOException ex)
        {
            // The child is gone already; nothing to tell it.
        }
    }

    /**
     * Wait for the child to end and for its output to be read; kill it if it does not end in time.
     *
     * @param timeout how long.
     * @param unit    its unit.
     * @return its exit status, or -1 if it had to be killed.
     * @throws InterruptedException if interrupted.
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
     * Kill the child (and wait briefly for it), e.g. when the run is abandoned.
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
