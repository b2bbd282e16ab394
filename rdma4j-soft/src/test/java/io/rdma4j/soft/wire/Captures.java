package io.rdma4j.soft.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The rxe captures under the test resources, their datagrams and their decoded TSV rows. Public, with its list of
 * captures and their datagrams, for the tests of other packages that check their codecs against real traffic.
 */
public final class Captures
{
    private Captures()
    {
    }

    static Path directory()
    {
        final URL url = Captures.class.getResource("/captures/README.md");
        if (null == url)
        {
            throw new IllegalStateException("captures missing from the test resources");
        }
        try
        {
            return Path.of(url.toURI()).getParent();
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    public static List<Path> pcaps()
    {
        try (Stream<Path> files = Files.list(directory()))
        {
            return files.filter(p -> p.getFileName().toString().endsWith(".pcap")).sorted().toList();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    public static List<PcapReader.Datagram> datagrams(final Path pcap)
    {
        try
        {
            return PcapReader.read(pcap);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    static List<PcapReader.Datagram> allDatagrams()
    {
        return pcaps().stream().flatMap(p -> datagrams(p).stream()).toList();
    }

    /** The decoded rows of a capture, by frame number; each row maps column name to text. */
    static Map<Integer, Map<String, String>> decoded(final Path pcap)
    {
        final String name = pcap.getFileName().toString().replace(".pcap", ".tsv");
        final Path tsv = directory().resolve("decoded").resolve(name);
        final Map<Integer, Map<String, String>> rows = new HashMap<>();
        try
        {
            final List<String> lines = Files.readAllLines(tsv);
            final String[] columns = lines.getFirst().split("\t", -1);
            for (final String line : lines.subList(1, lines.size()))
            {
                final String[] values = line.split("\t", -1);
                final Map<String, String> row = new HashMap<>();
                for (int i = 0; i < columns.length; i++)
                {
                    row.put(columns[i], i < values.length ? values[i] : "");
                }
                rows.put(Integer.parseInt(row.get("frame")), row);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return rows;
    }

    /** Parse a TSV number: decimal, or hex with 0x; unsigned 64-bit values wrap into a long. */
    static long number(final String text)
    {
        return text.startsWith("0x") ? Long.parseUnsignedLong(text.substring(2), 16) : Long.parseLong(text);
    }
}
