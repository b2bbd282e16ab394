package io.rdma4j.examples;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * An example's {@code main} in a JVM of its own, as a user runs it, with its output (stdout and
 * stderr merged) collected line by line.
 */
final class ExampleProcess implements AutoCloseable
{
    private final String name;
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;

    private ExampleProcess(final String name, final Process process)
    {
        this.name = name;
        this.process = process;
        this.reader = Thread.ofPlatform().daemon().name("example-" + name).start(this::pump);
    }

    static ExampleProcess start(final Class<?> example, final String... args) throws IOException
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), example.getName()));
        command.addAll(List.of(args));
        return new ExampleProcess(example.getSimpleName(),
            new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    /**
     * Start an example as a modular application runs it: {@code java -p ... -m io.rdma4j.examples/CLASS}, with
     * the examples' module, the API and both engines (the software device, the native provider) on the module path
     * and nothing on the class path. The examples do not require the engines' modules: they are bound through the
     * API's {@code uses}.
     */
    static ExampleProcess startOnModulePath(final Class<?> example, final String... args) throws IOException
    {
        final List<String> modulePath = new ArrayList<>();
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            final Path path = Path.of(entry);
            final String name = path.getFileName().toString();
            // this module's classes (not its test-classes), the rdma4j jars it runs with (both engines) and the soft
            // device's one dependency, Agrona
            if ((name.equals("classes") && path.getParent().getFileName().toString().equals("target")) ||
                ((name.startsWith("rdma4j-") || name.startsWith("agrona-")) && name.endsWith(".jar")))
            {
                modulePath.add(entry);
            }
        }
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            // both engines call into C: the README's flag for the module path
            "--enable-native-access=io.rdma4j.rdmacore,io.rdma4j.soft",
            "-p", String.join(File.pathSeparator, modulePath),
            "-m", "io.rdma4j.examples/" + example.getName()));
        command.addAll(List.of(args));
        return new ExampleProcess(example.getSimpleName(),
            new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    private void pump()
    {
        try (BufferedReader in = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                System.out.println("[" + name + "] " + line);
                synchronized (lines)
                {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        }
        catch (final IOException ex)
        {
            // the process went away; its lines so far stay
        }
    }

    /**
     * @return the first line matching, waiting up to {@code timeout} for it.
     */
    String awaitLine(final Predicate<String> wanted, final long timeout, final TimeUnit unit)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lines)
        {
            while (true)
            {
                for (final String line : lines)
                {
                    if (wanted.test(line))
                    {
                        return line;
                    }
                }
                final long left = deadline - System.nanoTime();
                if (left <= 0 || (!process.isAlive() && !reader.isAlive()))
                {
                    throw new AssertionError(name + " never printed the line awaited; its output: " + lines);
                }
                TimeUnit.NANOSECONDS.timedWait(lines, left);
            }
        }
    }

    /**
     * @return the exit status, after the output has been read to its end.
     */
    int awaitExit(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        if (!process.waitFor(timeout, unit))
        {
            throw new AssertionError(name + " still running after " + timeout + " " + unit + "; output: " + lines());
        }
        reader.join(unit.toMillis(timeout));
        return process.exitValue();
    }

    long pid()
    {
        return process.pid();
    }

    List<String> lines()
    {
        synchronized (lines)
        {
            return List.copyOf(lines);
        }
    }

    @Override
    public void close()
    {
        process.destroyForcibly();
    }
}
