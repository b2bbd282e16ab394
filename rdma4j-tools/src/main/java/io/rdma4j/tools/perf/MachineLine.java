package io.rdma4j.tools.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The machine a perf run ran on, the first line of its header: a figure means nothing without it, since the same
 * pair measures several times apart on a shared 2-vCPU host under load and on an idle one (docs/performance.md).
 * <pre>
 * # machine: cpu AMD EPYC 7B13, 2 online (1 for this JVM), kernel Linux 6.8.0, JVM 25.0.1+8, load 0.85 1.63 2.20
 * </pre>
 * "For this JVM" is what {@link Runtime#availableProcessors()} sees: fewer than online under {@code taskset}.
 *
 * @param cpu       the CPU model ({@code model name} of {@code /proc/cpuinfo}, else {@code os.arch}).
 * @param online    processors {@code /proc/cpuinfo} lists (the online ones), or 0 where it could not be read.
 * @param available processors this JVM may run on.
 * @param kernel    the operating system and its version.
 * @param jvm       the Java runtime's version.
 * @param load      the 1, 5 and 15 minute load averages, or "?" where {@code /proc/loadavg} could not be read.
 */
public record MachineLine(String cpu, int online, int available, String kernel, String jvm, String load)
{
    private static final String UNKNOWN = "?";

    /**
     * @param cpuinfo   the text of {@code /proc/cpuinfo}, or "" where there is none.
     * @param loadavg   the text of {@code /proc/loadavg}, or "".
     * @param arch      the fallback for a cpuinfo with no model name (aarch64 kernels print none).
     * @param available processors this JVM may run on.
     * @param kernel    the operating system and its version.
     * @param jvm       the Java runtime's version.
     * @return the line's fields.
     */
    static MachineLine parse(final String cpuinfo, final String loadavg, final String arch, final int available,
        final String kernel, final String jvm)
    {
        String model = null;
        int processors = 0;
        for (final String line : cpuinfo.split("\n"))
        {
            final int colon = line.indexOf(':');
            if (colon < 0)
            {
                continue;
            }
            final String key = line.substring(0, colon).trim();
            if (key.equals("processor"))
            {
                processors++;
            }
            else if (key.equals("model name") && model == null)
            {
                // the first: a hybrid CPU's cores differ, but a line names one model
                model = line.substring(colon + 1).trim().replaceAll("\\s+", " ");
            }
        }
        final String[] averages = loadavg.trim().split("\\s+");
        final String load = averages.length >= 3 ? averages[0] + " " + averages[1] + " " + averages[2] : UNKNOWN;
        return new MachineLine(model == null || model.isEmpty() ? arch : model, processors, available, kernel, jvm,
            load);
    }

    /**
     * @return this process's machine, now.
     */
    public static MachineLine current()
    {
        return parse(read("/proc/cpuinfo"), read("/proc/loadavg"), System.getProperty("os.arch"),
            Runtime.getRuntime().availableProcessors(),
            System.getProperty("os.name") + " " + System.getProperty("os.version"), Runtime.version().toString());
    }

    private static String read(final String file)
    {
        try
        {
            return Files.readString(Path.of(file));
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            // not Linux: the line says what it could not learn rather than failing the run
            return "";
        }
    }

    /**
     * @return the header line.
     */
    public String text()
    {
        return String.format(Locale.ROOT, "# machine: cpu %s, %s online (%d for this JVM), kernel %s, JVM %s, load %s",
            cpu, online > 0 ? String.valueOf(online) : UNKNOWN, available, kernel, jvm, load);
    }

    /**
     * Print this machine's line: {@code bin/perf-targets} records it once per sitting, from a JVM no
     * {@code taskset} pins.
     *
     * @param args none.
     */
    public static void main(final String[] args)
    {
        System.out.println(current().text());
    }
}
