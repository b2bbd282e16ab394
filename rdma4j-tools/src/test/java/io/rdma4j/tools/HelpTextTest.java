package io.rdma4j.tools;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.UsageMessageSpec;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code rdma4j --help} says: a description that names what the tool does now, and a listing where each
 * command's summary is a whole sentence (picocli lists the first line of a description alone, so a sentence
 * spread over two lines shows cut off).
 */
class HelpTextTest
{
    private static String help()
    {
        final StringWriter text = new StringWriter();
        final CommandLine commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(text, true));
        assertEquals(0, commandLine.execute("--help"));
        return text.toString();
    }

    /**
     * @return what the listing shows for a command: its header when it has one, else its description's first line.
     */
    private static String summary(final CommandLine command)
    {
        final UsageMessageSpec usage = command.getCommandSpec().usageMessage();
        return usage.header().length > 0 ? usage.header()[0] : usage.description()[0];
    }

    @Test
    void theDescriptionNamesEveryCommand()
    {
        final String description = String.join(" ", Main.commandLine().getCommandSpec().usageMessage().description());
        for (final String name : Main.commandLine().getSubcommands().keySet())
        {
            // the four ping-pongs are named together, and help is picocli's own
            if (!name.equals("help") && !name.endsWith("_pingpong"))
            {
                assertTrue(description.matches("(?s).*\\b" + name + "\\b.*"), name + " is not in: " + description);
            }
        }
        assertTrue(description.contains("ping-pongs"), description);
    }

    @Test
    void everyCommandsSummaryIsAWholeSentence()
    {
        for (final Map.Entry<String, CommandLine> command : Main.commandLine().getSubcommands().entrySet())
        {
            final String summary = summary(command.getValue()).strip();
            assertTrue(summary.endsWith("."), command.getKey() + "'s summary in the listing is cut off: " + summary);
        }
    }

    @Test
    void theListingShowsPerfsWholeSummary()
    {
        final String help = help().replaceAll("\\s+", " ");
        assertTrue(help.contains("perf perftest's latency and bandwidth tests over rdma4j, each beside a raw JDK " +
            "UDP baseline."), help);
        assertTrue(help.contains("(stat)") && help.contains("(soak)") && help.contains("(perf)"), help);
    }
}
