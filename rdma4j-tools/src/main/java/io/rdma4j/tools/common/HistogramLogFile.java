package io.rdma4j.tools.common;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A {@code --histogram FILE}: HdrHistogram's standard interval log (readable by its
 * {@code HistogramLogReader}, plotted by its tools), one tagged histogram per series.
 */
public final class HistogramLogFile implements AutoCloseable
{
    private final PrintStream file;
    private final HistogramLogWriter writer;

    /**
     * @param path    where to write (replaced if it exists).
     * @param comment a first line saying what the values are, e.g. their unit.
     * @throws IOException if the file cannot be written.
     */
    public HistogramLogFile(final Path path, final String comment) throws IOException
    {
        try
        {
            file = new PrintStream(path.toFile(), StandardCharsets.US_ASCII);
        }
        catch (final FileNotFoundException ex)
        {
            throw new IOException("can't write the histogram log " + path + ": " + ex.getMessage(), ex);
        }
        writer = new HistogramLogWriter(file);
        final long now = System.currentTimeMillis();
        writer.outputComment(comment);
        writer.outputLogFormatVersion();
        writer.outputStartTime(now);
        writer.setBaseTime(now);
        writer.outputLegend();
    }

    /**
     * @param tag       the series' name in the log.
     * @param histogram its values.
     */
    public void write(final String tag, final Histogram histogram)
    {
        histogram.setTag(tag);
        writer.outputIntervalHistogram(histogram);
        file.flush();
    }

    @Override
    public void close()
    {
        file.close();
    }
}
