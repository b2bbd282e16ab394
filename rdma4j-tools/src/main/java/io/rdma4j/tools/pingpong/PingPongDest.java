package io.rdma4j.tools.pingpong;

import io.rdma4j.tools.common.GidText;
import io.rdma4j.verbs.Gid;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Locale;

/**
 * One end of a pingpong connection as the rdma-core pingpong tools exchange it over TCP
 * ({@code struct pingpong_dest}): LID, QPN, PSN and GID.
 * <p>
 * On the wire each end is one fixed-size message: {@code sprintf("%04x:%06x:%06x:%s")} with the
 * GID as 32 hex digits, sent with its terminating NUL, 52 bytes in all. rdma-core's
 * {@code gid_to_wire_gid} prints the GID as four 32-bit words, each read from memory and passed
 * through {@code htonl} before {@code %08x}; on any host that yields the 16 GID bytes in memory
 * order, two hex digits each, so {@code ::ffff:10.77.0.11} travels as
 * {@code 00000000000000000000ffff0a4d000b}. {@code wire_gid_to_gid} undoes it with {@code ntohl}.
 *
 * @param lid the LID (0 on RoCE).
 * @param qpn the QP number.
 * @param psn the first PSN.
 * @param gid the GID; all zero when the tool runs without a GID index.
 */
public record PingPongDest(int lid, int qpn, int psn, Gid gid)
{
    /** Bytes of one message on the wire: {@code sizeof "0000:000000:000000:" + 32 hex digits}, NUL included. */
    public static final int WIRE_SIZE = "0000:000000:000000:00000000000000000000000000000000".length() + 1;

    /** What srq_pingpong sends for the QP slots it does not use: a zeroed {@code pingpong_dest}. */
    public static final PingPongDest EMPTY = new PingPongDest(0, 0, 0, Gid.ZERO);

    /**
     * @param gid a GID.
     * @return its 32 hex digits as {@code gid_to_wire_gid} writes them.
     */
    public static String gidToWire(final Gid gid)
    {
        return HexFormat.of().formatHex(gid.toBytes());
    }

    /**
     * @param wire 32 hex digits as {@code gid_to_wire_gid} writes them.
     * @return the GID.
     * @throws IllegalArgumentException if it is not 32 hex digits.
     */
    public static Gid wireToGid(final String wire)
    {
        if (wire.length() != 32)
        {
            throw new IllegalArgumentException("a wire GID has 32 hex digits, not " + wire.length() + ": " + wire);
        }
        return Gid.of(HexFormat.of().parseHex(wire));
    }

    /**
     * @return the message text without its NUL: {@code LLLL:QQQQQQ:PPPPPP:GGGG...}.
     */
    public String toWireText()
    {
        return String.format(Locale.ROOT, "%04x:%06x:%06x:%s", lid, qpn, psn, gidToWire(gid));
    }

    /**
     * @return the 52 bytes written to the socket, NUL-terminated as rdma-core sends them.
     */
    public byte[] toWire()
    {
        final byte[] text = toWireText().getBytes(StandardCharsets.US_ASCII);
        // A wider LID/QPN/PSN than the fields would overflow rdma-core's buffer; refuse rather than truncate.
        if (text.length >= WIRE_SIZE)
        {
            throw new IllegalStateException("pingpong address does not fit the " + WIRE_SIZE + "-byte message: " +
                toWireText());
        }
        final byte[] wire = new byte[WIRE_SIZE];
        System.arraycopy(text, 0, wire, 0, text.length);
        return wire;
    }

    /**
     * Parse a message as rdma-core's {@code sscanf("%x:%x:%x:%s")} does: up to the first NUL.
     *
     * @param wire the bytes received.
     * @param length how many of them.
     * @return the end it describes.
     * @throws IllegalArgumentException if it is not in that form.
     */
    public static PingPongDest fromWire(final byte[] wire, final int length)
    {
        int end = 0;
        while (end < length && wire[end] != 0)
        {
            end++;
        }
        return parse(new String(wire, 0, end, StandardCharsets.US_ASCII));
    }

    /**
     * @param text {@code LLLL:QQQQQQ:PPPPPP:GGGG...} (32 hex digits of GID).
     * @return the end it describes.
     * @throws IllegalArgumentException if it is not in that form.
     */
    public static PingPongDest parse(final String text)
    {
        final String[] parts = text.split(":", -1);
        if (parts.length != 4)
        {
            throw new IllegalArgumentException("not a pingpong address (LID:QPN:PSN:GID): '" + text + "'");
        }
        try
        {
            return new PingPongDest(Integer.parseUnsignedInt(parts[0], 16), Integer.parseUnsignedInt(parts[1], 16),
                Integer.parseUnsignedInt(parts[2], 16), wireToGid(parts[3]));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("not a pingpong address (LID:QPN:PSN:GID): '" + text + "'", ex);
        }
    }

    /**
     * @param label {@code "local address: "} or {@code "remote address:"}.
     * @param gidSeparator {@code ", "}, or {@code ": "} for ud_pingpong's local line, which rdma-core
     *                     prints that way.
     * @return the line rdma-core prints for this end, without the newline.
     */
    public String describe(final String label, final String gidSeparator)
    {
        return String.format(Locale.ROOT, "  %s LID 0x%04x, QPN 0x%06x, PSN 0x%06x%sGID %s", label, lid, qpn, psn,
            gidSeparator, GidText.of(gid));
    }
}
