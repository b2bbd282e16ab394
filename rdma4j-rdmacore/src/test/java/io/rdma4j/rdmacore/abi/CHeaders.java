package io.rdma4j.rdmacore.abi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Whether this machine can compile a C program against rdma-core's headers: a fresh machine with a JDK and
 * Maven has neither a C compiler nor {@code libibverbs-dev}, and the layout check then has nothing to compare
 * with.
 */
final class CHeaders
{
    private CHeaders()
    {
    }

    /**
     * @param headers the headers the program includes, as in {@code #include <...>}.
     * @param dir     a scratch directory.
     * @return null if {@code cc} preprocesses a file including them all, else one line saying what is missing.
     * @throws IOException          if the scratch file cannot be written.
     * @throws InterruptedException if interrupted while the compiler runs.
     */
    static String missing(final List<String> headers, final Path dir) throws IOException, InterruptedException
    {
        final StringBuilder c = new StringBuilder();
        for (final String header : headers)
        {
            c.append("#include <").append(header).append(">\n");
        }
        final Path probe = Files.writeString(dir.resolve("probe.c"), c);
        final Process process;
        try
        {
            process = new ProcessBuilder("cc", "-E", "-o", dir.resolve("probe.i").toString(), probe.toString())
                .redirectErrorStream(true).start();
        }
        catch (final IOException ex)
        {
            return "no C compiler (cc) on PATH";
        }
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            return "cc -E did not finish in 60 s";
        }
        if (process.exitValue() != 0)
        {
            final String first = output.lines().filter(line -> line.contains("error")).findFirst()
                .orElse(output.strip());
            return "rdma-core's headers do not preprocess: " + first.strip();
        }
        return null;
    }
}
