package io.rdma4j.tools.perf.perftest;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * perftest's exchange against byte strings written out from its format (perftest 4.5-0.17: {@code KEY_PRINT_FMT_GID},
 * the 16-byte version field, the MTU as two bytes of text, the reports as big-endian 8-byte fields), and the
 * refusals: an old version, a peer that is not perftest, a QP text that does not parse.
 */
class PerftestWireTest
{
    /** ::ffff:10.77.0.11, the lab guest's RoCEv2 GID. */
    private static final byte[] GID = HexFormat.of().parseHex("00000000000000000000ffff0a4d000b");
    /** What perftest's sprintf of KEY_PRINT_FMT_GID makes of that QP: 107 characters and the NUL. */
    private static final String DEST_TEXT = "0000:0010:000012:d6cb62:000003bb:00007f89b2185000:" +
        "00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:0b:00000000:";
    private static final PerftestDest DEST = new PerftestDest(0, 16, 0x12, 0xd6cb62, 0x3bb, 0x7f89b2185000L, GID, 0);

    private static byte[] ascii(final String text, final int size)
    {
        return Arrays.copyOf(text.getBytes(StandardCharsets.US_ASCII), size);
    }

    private static byte[] concat(final byte[]... parts)
    {
        final ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (final byte[] p : parts)
        {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    private static byte[] int32(final int value)
    {
        return new byte[] {(byte)(value >>> 24), (byte)(value >>> 16), (byte)(value >>> 8), (byte)value};
    }

    @Test
    void shouldWriteAQpAsPerftestsGidTextInItsFixedField()
    {
        assertEquals(107, DEST_TEXT.length(), "the format's width, the NUL making 108");
        assertArrayEquals(ascii(DEST_TEXT, PerftestDest.GID_BYTES), DEST.encode(true));
    }

    @Test
    void shouldReadPerftestsGidTextBack() throws IOException
    {
        final PerftestDest read = PerftestDest.decode(ascii(DEST_TEXT, PerftestDest.GID_BYTES));
        assertEquals(DEST, read);
        assertTrue(read.isIpv4Gid());
        // a wider value than the minimum width, as %06x prints a QPN of 25 bits' worth of garbage, still parses
        final PerftestDest wide = PerftestDest.decode(ascii(DEST_TEXT.replace("000012", "c0d952"), 108));
        assertEquals(0xc0d952, wide.qpn());
    }

    @Test
    void shouldRoundTripTheFormWithoutGid() throws IOException
    {
        final byte[] field = DEST.encode(false);
        assertArrayEquals(ascii("0000:0010:000012:d6cb62:000003bb:00007f89b2185000:00000000", PerftestDest.LID_BYTES),
            field);
        final PerftestDest read = PerftestDest.decode(field);
        assertEquals(0x12, read.qpn());
        assertEquals(0x7f89b2185000L, read.vaddr());
        assertFalse(read.isIpv4Gid(), "no GID in this form: all zero");
    }

    @Test
    void shouldRefuseTextThatIsNotPerftests()
    {
        final PerftestException few = assertThrows(PerftestException.class,
            () -> PerftestDest.decode(ascii("0000:0010:000012", PerftestDest.GID_BYTES)));
        assertTrue(few.getMessage().contains("3 fields"), few.getMessage());
        final PerftestException hex = assertThrows(PerftestException.class,
            () -> PerftestDest.decode(ascii(DEST_TEXT.replace("d6cb62", "zzzzzz"), PerftestDest.GID_BYTES)));
        assertTrue(hex.getMessage().contains("zzzzzz"), hex.getMessage());
    }

    @Test
    void shouldPadTheVersionAndRefuseOnesOlderThan570() throws IOException
    {
        assertArrayEquals(ascii("6.06", 16), PerftestVersion.encode("6.06"));
        assertEquals("5.70", PerftestVersion.decode(ascii("5.70", 16)));
        PerftestVersion.check("5.70");
        PerftestVersion.check("6.06");
        assertEquals(6.2, PerftestVersion.number("6.20-beta"), 1e-9, "atof reads the leading number");
        final PerftestException old = assertThrows(PerftestException.class, () -> PerftestVersion.check("5.60"));
        assertTrue(old.getMessage().contains("'5.60'") && old.getMessage().contains("5.70"), old.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PerftestVersion.encode("1234567890123456"));
    }

    @Test
    void shouldSendItsSetUpAsAClientWritesAndTakeTheSmallerMtu() throws IOException
    {
        final byte[] peer = concat(ascii("6.06", 16), int32(8192), int32(128), ascii("2", 2));
        final ByteArrayOutputStream sent = new ByteArrayOutputStream();
        final PerftestChannel client = new PerftestChannel(new DataInputStream(new ByteArrayInputStream(peer)),
            new DataOutputStream(sent), true);
        assertEquals("6.06", client.versions());
        assertArrayEquals(new int[] {8192, 128}, client.sysData(4096, 64), "each the larger of the two");
        assertEquals(2, client.mtu(3), "the peer's 512 B is the smaller");
        assertArrayEquals(concat(ascii("6.06", 16), int32(4096), int32(64), ascii("3", 2)), sent.toByteArray());
    }

    @Test
    void shouldKeepItsOwnMtuWhenThePeersIsNoMtu() throws IOException
    {
        final PerftestChannel c = new PerftestChannel(new DataInputStream(new ByteArrayInputStream(ascii("9", 2))),
            new DataOutputStream(new ByteArrayOutputStream()), true);
        assertEquals(3, c.mtu(3));
    }

    @Test
    void shouldReadBeforeWritingAsTheServer()
    {
        final ByteArrayOutputStream sent = new ByteArrayOutputStream();
        final PerftestChannel server = new PerftestChannel(new DataInputStream(new ByteArrayInputStream(new byte[0])),
            new DataOutputStream(sent), false);
        assertThrows(EOFException.class, server::versions);
        assertEquals(0, sent.size(), "the server answers only what it read");
        final ByteArrayOutputStream clientSent = new ByteArrayOutputStream();
        final PerftestChannel client = new PerftestChannel(new DataInputStream(new ByteArrayInputStream(new byte[0])),
            new DataOutputStream(clientSent), true);
        assertThrows(EOFException.class, client::versions);
        assertArrayEquals(ascii("6.06", 16), clientSent.toByteArray(), "the client writes first");
    }

    @Test
    void shouldRefuseRdma4jsOwnExchangeAsNoVersion() throws IOException
    {
        // rdma4j perf's own exchange opens with writeUTF of its settings: a length, then "send_lat RC ..."
        final ByteArrayOutputStream own = new ByteArrayOutputStream();
        new DataOutputStream(own).writeUTF("send_lat RC sizes=[64] n=1000");
        final PerftestChannel c = new PerftestChannel(new DataInputStream(new ByteArrayInputStream(own.toByteArray())),
            new DataOutputStream(new ByteArrayOutputStream()), true);
        final PerftestException ex = assertThrows(PerftestException.class, c::versions);
        assertTrue(ex.getMessage().contains("--exchange perftest"), ex.getMessage());
    }

    @Test
    void shouldSwapQpsAndReportsAndEndWithDone() throws IOException
    {
        final BwReport theirs = new BwReport(65536, 1000, 6.85, 6.85, 0.00011);
        final byte[][] fields = theirs.encode();
        assertArrayEquals(HexFormat.of().parseHex("0000000000010000"), fields[0], "size, big-endian");
        assertArrayEquals(HexFormat.of().parseHex("00000000000003e8"), fields[1], "iterations, 64 bits");
        assertArrayEquals(HexFormat.of().parseHex("401b666666666666"), fields[2], "6.85 as IEEE 754, big-endian");
        final byte[] peer = concat(ascii(DEST_TEXT, 108), concat(fields), ascii(DEST_TEXT, 108), ascii("done", 5));
        final ByteArrayOutputStream sent = new ByteArrayOutputStream();
        final PerftestChannel server = new PerftestChannel(new DataInputStream(new ByteArrayInputStream(peer)),
            new DataOutputStream(sent), false);
        assertEquals(DEST, server.handshake(DEST));
        assertEquals(theirs, server.bwReport(new BwReport(0, 0, 0, 0, 0)));
        server.close(DEST);
        final byte[] zero = new byte[8];
        assertArrayEquals(concat(DEST.encode(true), zero, zero, zero, zero, zero, DEST.encode(true),
            ascii("done", 5)), sent.toByteArray());
    }
}
