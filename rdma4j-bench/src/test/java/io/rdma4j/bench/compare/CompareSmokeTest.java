package io.rdma4j.bench.compare;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole harness with tiny counts, its processes on 127.0.0.135..141 and ports 19200..19222:
 * every row of the table is there with a figure, and each ratio is its figure over the raw UDP
 * figure of the same workload and idle mode. No figure is judged. The multicast rows have their own test
 * ({@link McastComparisonTest}).
 */
class CompareSmokeTest
{
    private static final Pattern VS_UDP = Pattern.compile("vs udp ([\\d.]+);");
    private static final Pattern ROW =
        Pattern.compile("(\\S.{27}) (\\S.{43}) +([\\d.]+) (us|MB/s|msgs/s) +([\\d.]+)(?:  .*)?");

    @Test
    void shouldProduceEveryRowWithARatioAgainstRawUdp()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final int status = new CommandLine(new Compare(out)).execute("-n", "30", "--warmup", "10",
            "--stream-messages", "40", "--stream-warmup", "10", "--stream-size", "4096", "--rate-messages", "400",
            "--rate-warmup", "100", "--fanout-iterations", "30", "--fanout-warmup", "10", "--first-host", "135", "--first-port", "19200",
            "--timeout", "120", "--only", "pingpong,ud-pingpong,stream,rate,fanout");
        final String text = bytes.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        assertEquals(0, status, "every row has a figure");
        final List<String> rows = text.lines().filter(l -> ROW.matcher(l).matches()).toList();
        final List<String> allModes = List.of("raw UDP DatagramChannel, busy poll",
            "raw UDP DatagramChannel, blocking", "progress thread, busy poll", "polling mode, busy poll",
            "progress thread, CQ events", "Aeron yielding driver, busy poll", "Aeron back-off driver, back-off poll");
        // the two comparisons with Aeron: rdma4j's polling mode against Aeron on the application's thread
        final List<String> busyModes = List.of("raw UDP DatagramChannel, busy poll", "polling mode, busy poll",
            "progress thread, busy poll", "Aeron driver on the app thread, busy poll", "Aeron yielding driver, busy poll");
        final Map<String, List<String>> workloads = new LinkedHashMap<>();
        workloads.put("pingpong 64B p50", allModes);
        workloads.put("ud-pingpong 64B p50", busyModes);
        workloads.put("stream 4096B", allModes);
        workloads.put("rate 64B", busyModes);
        workloads.put("fanout 1->2 64B p50", allModes);
        for (final Map.Entry<String, List<String>> entry : workloads.entrySet())
        {
            final String workload = entry.getKey();
            final List<String> systems = entry.getValue();
            assertEquals(systems.size(), rows.stream().filter(l -> l.startsWith(workload + " ")).count(),
                workload + ": one row per system in\n" + text);
            double udpBusy = Double.NaN;
            double udpBlocking = Double.NaN;
            for (final String system : systems)
            {
                final List<String> found = rows.stream()
                    .filter(l -> l.startsWith(workload + " ") && l.contains(system)).toList();
                assertEquals(1, found.size(), workload + " / " + system + " in\n" + text);
                final Matcher m = ROW.matcher(found.getFirst());
                assertTrue(m.matches());
                final double figure = Double.parseDouble(m.group(3));
                assertTrue(figure > 0, found.getFirst());
                assertEquals(workload.startsWith("stream") ? "MB/s" : workload.startsWith("rate") ? "msgs/s" : "us",
                    m.group(4));
                if (system.startsWith("raw UDP"))
                {
                    assertEquals("1.00", m.group(5), "raw UDP over itself");
                    if (system.endsWith("busy poll"))
                    {
                        udpBusy = figure;
                    }
                    else
                    {
                        udpBlocking = figure;
                    }
                }
                else if (system.startsWith("Aeron"))
                {
                    final double udp = system.contains("busy") ? udpBusy : udpBlocking;
                    assertEquals(String.format(Locale.ROOT, "%.2f", figure / udp), m.group(5), found.getFirst());
                }
                else
                {
                    // rdma4j's rows: over the baseline of their own run, which the note names.
                    final Matcher udp = VS_UDP.matcher(found.getFirst());
                    assertTrue(udp.find(), found.getFirst());
                    assertEquals(String.format(Locale.ROOT, "%.2f", figure / Double.parseDouble(udp.group(1))),
                        m.group(5), found.getFirst());
                }
            }
        }
    }
}
