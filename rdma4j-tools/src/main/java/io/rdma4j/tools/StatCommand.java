package io.rdma4j.tools;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.stat.StatFile;
import io.rdma4j.stat.StatReader;
import io.rdma4j.verbs.RdmaException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * {@code rdma4j stat}: the counters of every rdma4j software device and reliable-multicast publication and
 * subscription running on this machine for this user, read live from the files they map ({@link StatFile}), as
 * {@code rdma statistic} shows rxe's and AeronStat shows Aeron's. Each file's counters are grouped as the file groups
 * them (a device's, its link's, the connection manager's on it; a publication's; a subscription's), then its
 * describe lines: a device's QPs, multicast groups and connection manager ids, a publication's session and a
 * subscription's group.
 */
@Command(name = "stat", mixinStandardHelpOptions = true,
    description = "Show the counters (the device's, its link's, its connection manager's), QPs, multicast groups " +
        "and connection manager ids of every rdma4j device on this machine, and the counters of every reliable " +
        "multicast publication and subscription, live.")
public final class StatCommand implements Callable<Integer>
{
    /** How the describe section's lines begin, and the heading each kind is shown under; the last takes the rest. */
    private static final String[][] DESCRIBE_SECTIONS = {
        {"qp ", "qps"}, {"group ", "multicast groups"}, {"cm id ", "cm ids"}, {"publication ", "publications"},
        {"subscription ", "subscriptions"}, {"", "other"}};

    @Spec
    private CommandSpec spec;

    @Option(names = "-w", description = "watch: print again every --interval seconds until interrupted")
    private boolean watch;

    @Option(names = "--interval", paramLabel = "s", defaultValue = "1", description = "seconds between prints with -w")
    private long intervalSeconds;

    @Option(names = "--count", paramLabel = "n", defaultValue = "0",
        description = "with -w, stop after n prints (default: never)")
    private int count;

    @Option(names = "-a", description = "all counters, zeroes included")
    private boolean all;

    @Option(names = "--dir", paramLabel = "dir", description = "where the devices' files are (default: as the devices)")
    private Path directory;

    @Parameters(arity = "0..1", paramLabel = "regex",
        description = "only counters whose name matches, or those of a group named in full (device, link, cm, " +
            "publication, subscription)")
    private Pattern filter;

    /**
     * @return 0, 1 when no device is running, 2 when the directory is refused (not this user's alone) or the
     *         settings are (a value a setting does not accept).
     */
    @Override
    public Integer call() throws IOException, InterruptedException
    {
        final PrintWriter out = spec.commandLine().getOut();
        final Path dir;
        try
        {
            // as the devices: their settings, read from the same properties and environment
            dir = directory != null ? directory : SoftSettings.fromSystem().statDirectory();
        }
        catch (final RdmaException ex)
        {
            spec.commandLine().getErr().println("rdma4j stat: " + ex.getMessage());
            return 2;
        }
        for (int round = 1; ; round++)
        {
            final List<StatReader.DeviceStat> devices;
            try
            {
                devices = StatReader.readAll(dir);
            }
            catch (final IOException ex)
            {
                spec.commandLine().getErr().println("rdma4j stat: " + ex.getMessage());
                return 2;
            }
            print(out, dir, devices);
            out.flush();
            if (!watch || (count > 0 && round >= count))
            {
                return devices.isEmpty() ? 1 : 0;
            }
            TimeUnit.SECONDS.sleep(intervalSeconds);
        }
    }

    private void print(final PrintWriter out, final Path dir, final List<StatReader.DeviceStat> devices)
    {
        if (devices.isEmpty())
        {
            out.println("no rdma4j device is running (files in " + dir + ")");
            return;
        }
        for (final StatReader.DeviceStat device : devices)
        {
            final Duration up = Duration.ofMillis(System.currentTimeMillis() - device.started());
            out.printf("%s %s pid %d up %ds%n", device.device(), device.address(), device.pid(), up.toSeconds());
            final Map<String, List<StatReader.Counter>> groups = new LinkedHashMap<>();
            for (final StatReader.Counter counter : device.counters())
            {
                if ((all || counter.value() != 0) && (filter == null || filter.matcher(counter.name()).find() ||
                    filter.matcher(counter.group()).matches()))
                {
                    groups.computeIfAbsent(counter.group(), g -> new ArrayList<>()).add(counter);
                }
            }
            groups.forEach((group, counters) ->
            {
                out.println("  " + group + " counters");
                counters.forEach(c -> out.printf("    %-30s %d%n", c.name(), c.value()));
            });
            final Map<String, List<String>> sections = new LinkedHashMap<>();
            for (final String[] heading : DESCRIBE_SECTIONS)
            {
                sections.put(heading[1], new ArrayList<>());
            }
            device.describe().lines().forEach(line -> sections.get(sectionOf(line)).add(line));
            sections.forEach((heading, lines) ->
            {
                if (!lines.isEmpty())
                {
                    out.println("  " + heading);
                    lines.forEach(line -> out.println("    " + line));
                }
            });
        }
    }

    private static String sectionOf(final String line)
    {
        for (final String[] section : DESCRIBE_SECTIONS)
        {
            if (line.startsWith(section[0]))
            {
                return section[1];
            }
        }
        throw new AssertionError("the last prefix matches every line");
    }
}
