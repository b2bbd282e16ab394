package io.rdma4j.tools.perf.perftest;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;

/**
 * One QP's side of the connection as perftest tells it (its {@code pingpong_dest}): LID, outstanding reads, QP
 * number, first PSN, the rkey and virtual address of the buffer the peer may reach, the GID and the SRQ number.
 * On the wire it is C text, colon-separated hex of fixed minimum widths, NUL-terminated in a fixed-size field:
 * {@value #GID_BYTES} bytes with the GID (every RoCE run: perftest picks a GID index itself on Ethernet) and
 * {@value #LID_BYTES} without it (InfiniBand without {@code -x}).
 * <pre>
 * 0000:0010:000011:b1e2a3:00001234:00007f0012340000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:01:00000000:
 * </pre>
 * With {@code -R} the same data goes as one SEND of the C struct itself ({@value #STRUCT_BYTES} bytes, x86-64 layout),
 * each integer big-endian: lid, out_reads, qpn, psn, rkey at 0..19, four bytes of alignment, vaddr at 24, the GID at
 * 32, srqn at 48 and the sender's GID index at 52. perftest's reader takes lid to the GID and ignores the rest.
 *
 * @param lid      the port's LID (0 on RoCE).
 * @param outReads the RDMA READs and atomics the side allows in flight.
 * @param qpn      the QP number (24 bits).
 * @param psn      the first PSN of its send queue (24 bits).
 * @param rkey     the rkey of its buffer.
 * @param vaddr    the buffer's virtual address.
 * @param gid      the port's GID, 16 bytes.
 * @param srqn     the SRQ number (XRC and DC only; 0 otherwise).
 */
public record PerftestDest(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, byte[] gid, int srqn)
{
    /** The field's size with the GID (perftest's {@code KEY_MSG_SIZE_GID}). */
    public static final int GID_BYTES = 108;
    /** The field's size without it (perftest's {@code KEY_MSG_SIZE}). */
    public static final int LID_BYTES = 59;
    /** The size of perftest's {@code struct pingpong_dest} on x86-64, what an rdma_cm run SENDs. */
    public static final int STRUCT_BYTES = 56;
    private static final int VADDR_AT = 24;
    private static final int GID_AT = 32;
    private static final int SRQN_AT = 48;
    private static final int GID_INDEX_AT = 52;
    private static final int GID_LENGTH = 16;
    /** lid, out_reads, qpn, psn, rkey, vaddr. */
    private static final int HEAD_FIELDS = 6;

    /**
     * Copies the GID, which must be 16 bytes.
     */
    public PerftestDest
    {
        if (gid.length != GID_LENGTH)
        {
            throw new IllegalArgumentException("a GID is 16 bytes, not " + gid.length);
        }
        gid = gid.clone();
    }

    /**
     * @return the GID's bytes (a copy).
     */
    @Override
    public byte[] gid()
    {
        return gid.clone();
    }

    /**
     * @param withGid the form with the GID ({@value #GID_BYTES} bytes) or without ({@value #LID_BYTES}).
     * @return the field as perftest writes it: the text, NUL-padded to the field's size.
     */
    public byte[] encode(final boolean withGid)
    {
        final StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "%04x:%04x:%06x:%06x:%08x:%016x:",
            lid, outReads, qpn, psn, rkey, vaddr));
        if (withGid)
        {
            for (final byte b : gid)
            {
                text.append(String.format(Locale.ROOT, "%02x:", b & 0xFF));
            }
            text.append(String.format(Locale.ROOT, "%08x:", srqn));
        }
        else
        {
            text.append(String.format(Locale.ROOT, "%08x", srqn));
        }
        final int size = withGid ? GID_BYTES : LID_BYTES;
        final byte[] ascii = text.toString().getBytes(StandardCharsets.US_ASCII);
        if (ascii.length >= size)
        {
            throw new IllegalStateException("a field wider than perftest's: " + text);
        }
        return Arrays.copyOf(ascii, size);
    }

    /**
     * @param field the field as read ({@value #GID_BYTES} or {@value #LID_BYTES} bytes).
     * @return the peer's QP.
     * @throws PerftestException quoting the text when it is not perftest's format.
     */
    public static PerftestDest decode(final byte[] field) throws PerftestException
    {
        int end = 0;
        while (end < field.length && field[end] != 0)
        {
            end++;
        }
        final String text = new String(field, 0, end, StandardCharsets.US_ASCII);
        final String[] parts = text.split(":", -1);
        final boolean withGid = field.length == GID_BYTES;
        final int needed = HEAD_FIELDS + (withGid ? GID_LENGTH : 0) + 1;
        if (parts.length < needed)
        {
            throw new PerftestException("the peer's QP data '" + text + "' has " + parts.length + " fields, not the " +
                needed + " of perftest's format (lid:out_reads:qpn:psn:rkey:vaddr" + (withGid ? ":gid[16]" : "") +
                ":srqn)");
        }
        try
        {
            final byte[] gid = new byte[GID_LENGTH];
            if (withGid)
            {
                for (int i = 0; i < GID_LENGTH; i++)
                {
                    gid[i] = (byte)hex(parts[HEAD_FIELDS + i], 2);
                }
            }
            return new PerftestDest((int)hex(parts[0], 4), (int)hex(parts[1], 8), (int)hex(parts[2], 6),
                (int)hex(parts[3], 6), (int)hex(parts[4], 8), Long.parseUnsignedLong(parts[5], 16), gid,
                (int)hex(parts[needed - 1], 8));
        }
        catch (final NumberFormatException ex)
        {
            throw new PerftestException("the peer's QP data '" + text + "' is not perftest's format: " +
                ex.getMessage());
        }
    }

    /**
     * @param gidIndex the GID index this side uses, the struct's last field (-1 for none, as perftest on InfiniBand).
     * @return the struct as perftest's rdma_cm exchange SENDs it ({@value #STRUCT_BYTES} bytes).
     */
    public byte[] encodeStruct(final int gidIndex)
    {
        final ByteBuffer b = ByteBuffer.allocate(STRUCT_BYTES).order(ByteOrder.BIG_ENDIAN);
        b.putInt(lid).putInt(outReads).putInt(qpn).putInt(psn).putInt(rkey);
        b.putLong(VADDR_AT, vaddr).put(GID_AT, gid).putInt(SRQN_AT, srqn).putInt(GID_INDEX_AT, gidIndex);
        return b.array();
    }

    /**
     * @param message a received SEND of perftest's struct.
     * @return the peer's QP.
     * @throws PerftestException if the message is shorter than the struct.
     */
    public static PerftestDest decodeStruct(final byte[] message) throws PerftestException
    {
        if (message.length < STRUCT_BYTES)
        {
            throw new PerftestException("the peer's QP data is " + message.length + " bytes, not the " + STRUCT_BYTES +
                " of perftest's struct pingpong_dest");
        }
        final ByteBuffer b = ByteBuffer.wrap(message).order(ByteOrder.BIG_ENDIAN);
        final byte[] gid = new byte[GID_LENGTH];
        b.get(GID_AT, gid);
        return new PerftestDest(b.getInt(0), b.getInt(4), b.getInt(8) & 0xFFFFFF, b.getInt(12) & 0xFFFFFF,
            b.getInt(16), b.getLong(VADDR_AT), gid, b.getInt(SRQN_AT));
    }

    private static long hex(final String digits, final int most)
    {
        if (digits.isEmpty() || digits.length() > most)
        {
            throw new NumberFormatException("'" + digits + "' is not 1.." + most + " hex digits");
        }
        return Long.parseLong(digits, 16);
    }

    /**
     * @return true when the GID is an IPv4-mapped IPv6 address (RoCEv2 over IPv4): perftest refuses a peer whose
     *     GID is of the other family.
     */
    public boolean isIpv4Gid()
    {
        for (int i = 0; i < 10; i++)
        {
            if (gid[i] != 0)
            {
                return false;
            }
        }
        return (gid[10] & 0xFF) == 0xFF && (gid[11] & 0xFF) == 0xFF;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof PerftestDest d && lid == d.lid && outReads == d.outReads && qpn == d.qpn &&
            psn == d.psn && rkey == d.rkey && vaddr == d.vaddr && Arrays.equals(gid, d.gid) && srqn == d.srqn;
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(gid) * 31 + Long.hashCode(vaddr) + qpn;
    }

    @Override
    public String toString()
    {
        return String.format(Locale.ROOT, "PerftestDest[lid=%d, outReads=%d, qpn=0x%06x, psn=0x%06x, rkey=0x%08x, " +
            "vaddr=0x%016x, gid=%s, srqn=%d]", lid, outReads, qpn, psn, rkey, vaddr, HexFormat.of().formatHex(gid), srqn);
    }
}
