package io.rdma4j.tools.perf.perftest;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The version each perftest side writes first on the connection: a NUL-padded string in a fixed 16-byte field.
 * Its number also decides the later messages' shapes (the MTU as two bytes of text from 5.31, the page and cache
 * line sizes from 5.32, 64-bit iteration counts from 5.33), and a peer older than 5.70 is refused, as perftest
 * itself refuses it; so this side claims the version whose exchange it speaks.
 */
public final class PerftestVersion
{
    /** The field's size on the wire (perftest's {@code MAX_VERSION}). */
    public static final int BYTES = 16;
    /** The version whose exchange this package speaks: Debian 12's perftest 4.5-0.17. */
    public static final String OURS = "6.06";
    /** The oldest peer perftest itself talks to. */
    public static final double OLDEST = 5.70;
    /** A leading decimal number, as C's {@code atof} reads one. */
    private static final Pattern NUMBER = Pattern.compile("^\\s*([+-]?\\d+(?:\\.\\d*)?|[+-]?\\.\\d+)");
    /** What perftest writes in its version field: its VERSION, such as 6.06 or 5.70. */
    private static final Pattern VERSION_FIELD = Pattern.compile("\\d{1,3}\\.\\d{1,3}[0-9A-Za-z.+~-]{0,8}");

    private PerftestVersion()
    {
    }

    /**
     * @param version a version string of at most 15 characters.
     * @return its 16-byte field, NUL-padded.
     */
    public static byte[] encode(final String version)
    {
        final byte[] text = version.getBytes(StandardCharsets.US_ASCII);
        if (text.length >= BYTES)
        {
            throw new IllegalArgumentException("version '" + version + "' is longer than " + (BYTES - 1) + " bytes");
        }
        return Arrays.copyOf(text, BYTES);
    }

    /**
     * @param field a 16-byte field as read.
     * @return the string before its first NUL.
     */
    public static String decode(final byte[] field)
    {
        int end = 0;
        while (end < field.length && field[end] != 0)
        {
            end++;
        }
        return new String(field, 0, end, StandardCharsets.US_ASCII);
    }

    /**
     * @param version a version string.
     * @return its leading number as {@code atof} reads it (0 when it starts with none).
     */
    public static double number(final String version)
    {
        final Matcher m = NUMBER.matcher(version);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /**
     * @param remote the peer's version string.
     * @throws PerftestException naming both versions when the peer is older than 5.70, or sent no number (a
     *     peer that is not perftest, such as {@code rdma4j perf} without {@code --exchange perftest}).
     */
    public static void check(final String remote) throws PerftestException
    {
        if (number(remote) < OLDEST)
        {
            throw new PerftestException(String.format(Locale.ROOT, "the peer's perftest version is '%s': this side " +
                "speaks perftest %s's exchange, which needs %.2f or newer (a peer that is not perftest sends no " +
                "version: is it rdma4j perf without --exchange perftest?)", printable(remote), OURS, OLDEST));
        }
    }

    /**
     * Whether a peer's first 16 bytes are perftest's version field: a version number ("6.06", "5.70"), then NULs
     * to the end, and nothing else. rdma4j's own exchange starts with a 2-byte length, whose first byte is 0 for
     * any signature it sends, so the two cannot be mistaken for each other.
     *
     * @param field the first {@link #BYTES} bytes the peer sent.
     * @return the version string, or null if the field is not perftest's.
     */
    public static String recognise(final byte[] field)
    {
        if (field.length != BYTES)
        {
            return null;
        }
        final String version = decode(field);
        for (int i = version.length(); i < BYTES; i++)
        {
            if (field[i] != 0)
            {
                return null;
            }
        }
        return VERSION_FIELD.matcher(version).matches() ? version : null;
    }

    private static String printable(final String text)
    {
        final StringBuilder b = new StringBuilder();
        for (final char c : text.toCharArray())
        {
            b.append(c >= 0x20 && c < 0x7F ? String.valueOf(c) : String.format(Locale.ROOT, "\\x%02x", (int)c));
        }
        return b.toString();
    }
}
