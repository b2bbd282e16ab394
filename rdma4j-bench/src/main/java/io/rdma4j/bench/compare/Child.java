package io.rdma4j.bench.compare;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One process of a workload: a JVM on this machine's Java and class path, its stdout and stderr
 * merged and kept line by line. Public for the Netty comparison ({@code io.rdma4j.bench.netty}), which starts its
 * servers and clients the same way.
 */
public final class Child implements AutoCloseable
{
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;
    private boolean ended;

    private Child(final Process process)
    {
        this.process = process;
        this.reader = Thread.ofPlatform().daemon().start(this::pump);
    }

    /**
     * @return the child's process id, for a reading of its CPU time ({@code /proc/PID/stat}).
     */
    public long pid()
    {
        return process.pid();
    }

    /**
     * @param jvmOptions options before the main class.
     * @param mainClass  the class to run.
     * @param args       its arguments.
     * @return the running child.
     * @throws IOException if it cannot be started.
     */
    public static Child start(final List<String> jvmOptions, final String mainClass, final List<String> args)
        throws IOException
    {
        return start(jvmOptions, System.getProperty("java.class.path"), mainClass, args);
    }

    /**
     * @param jvmOptions options before the main class.
     * @param classPath  the child's class path (another build's, say).
     * @param mainClass  the class to run.
     * @param args       its arguments.
     * @return the running child.
     * @throws IOException if it cannot be started.
     */
    public static Child start(final List<String> jvmOptions, final String classPath, final String mainClass,
        final List<String> args) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse(
            System.getProperty("java.home") + "/bin/java"));
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(args);
        return new Child(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    private void pump()
    {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                synchronized (lines)
                {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        }
        catch (final IOException ex)
        {
            // the process went away; what it printed is kept
        }
        finally
        {
            synchronized (lines)
            {
                ended = true;
                lines.notifyAll();
            }
        }
    }

    /**
     * @param wanted  the line waited for.
     * @param timeout how long to wait.
     * @param unit    the timeout's unit.
     * @return true once a line matches, false if the output ended or the time ran out first.
     * @throws InterruptedException if interrupted while waiting.
     */
    public boolean awaitLine(final Predicate<String> wanted, final long timeout, final TimeUnit unit)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lines)
        {
            while (lines.stream().noneMatch(wanted))
            {
                final long left = deadline - System.nanoTime();
                if (ended || left <= 0)
                {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lines, left);
            }
            return true;
        }
    }

    /**
     * @param timeout how long to wait for it to end.
     * @param unit    the timeout's unit.
     * @return the exit status, or -1 if it had to be killed at the deadline.
     * @throws InterruptedException if interrupted while waiting.
     */
    public int await(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        if (!process.waitFor(timeout, unit))
        {
            close();
            return -1;
        }
        reader.join(TimeUnit.SECONDS.toMillis(5));
        return process.exitValue();
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
     * @return the last line that is not a stack frame, for a failure's note.
     */
    public String lastLine()
    {
        final List<String> all = lines();
        for (int i = all.size() - 1; i >= 0; i--)
        {
            final String line = all.get(i).strip();
            // Skip a stack trace's frames, indented by a tab or (picocli's) by spaces: the exception's own line says
            // what went wrong.
            if (!line.isEmpty() && !line.startsWith("at ") && !line.startsWith("..."))
            {
                return line;
            }
        }
        return "(no output)";
    }

    /**
     * For a failure's note: the first line that names an exception or an error (a stack trace's head: its
     * suppressed and causing exceptions follow it), else {@link #lastLine}, and the file the whole output was saved
     * to, owner-only in the temporary directory, so a failure that happens one run in five can be read afterwards.
     *
     * @param name what the child was, for the file's name.
     * @return the note.
     */
    public String failureNote(final String name)
    {
        final List<String> all = lines();
        String head = null;
        for (final String line : all)
        {
            final String stripped = line.strip();
            if (!stripped.startsWith("at ") && (stripped.contains("Exception") || stripped.contains("Error")))
            {
                head = stripped;
                break;
            }
        }
        final String note = head != null ? head : lastLine();
        try
        {
            // createTempFile makes the file rw------- on a POSIX file system, with a name nobody could have made
            // first (a link another user planted is not followed: the file must be new)
            final Path file = Files.createTempFile("rdma4j-" + name.replaceAll(
                "[^A-Za-z0-9.-]", "_") + "-", ".log");
            Files.write(file, all, StandardCharsets.UTF_8);
            return note + " (whole output: " + file + ")";
        }
        catch (final IOException ex)
        {
            return note + " (output not saved: " + ex.getMessage() + ")";
        }
    }

    /**
     * Write a line to the child's standard input.
     *
     * @param line the line, without its end.
     * @throws IOException if the child's input is closed.
     */
    public void send(final String line) throws IOException
    {
        final java.io.OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /**
     * Close the child's standard input: a server that reads it to the end takes that as the signal to stop.
     */
    public void endInput()
    {
        try
        {
            process.getOutputStream().close();
        }
        catch (final IOException ex)
        {
            // already gone: it stops anyway
        }
    }

    @Override
    public void close()
    {
        if (process.isAlive())
        {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }
}
