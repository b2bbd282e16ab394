package io.rdma4j.tools.perf.perftest;

import org.junit.jupiter.api.Test;

import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * perftest's exchange with {@code -R} against byte strings laid out as perftest 4.5-0.17's
 * {@code rdma_write_keys} SENDs its {@code struct pingpong_dest} (x86-64, each integer big-endian), and the order
 * of SENDs and receives a side makes, one message each, with no {@code "done"} at the end.
 */
class PerftestRdmaCmWireTest
{
    /** ::ffff:10.77.0.11, the lab guest's RoCEv2 GID. */
    private static final String GID_HEX = "00000000000000000000ffff0a4d000b";
    private static final PerftestDest DEST = new PerftestDest(0, 16, 0x12, 0xd6cb62, 0x3bb, 0x7f89b2185000L,
        HexFormat.of().parseHex(GID_HEX), 0);
    /** lid, out_reads, qpn, psn, rkey, 4 bytes of alignment, vaddr, GID, srqn, gid_index 1. */
    private static final String STRUCT_HEX = "00000000" + "00000010" + "00000012" + "00d6cb62" + "000003bb" +
        "00000000" + "00007f89b2185000" + GID_HEX + "00000000" + "00000001";

    @Test
    void shouldLayOutTheStructAsPerftestSendsIt()
    {
        assertEquals(PerftestDest.STRUCT_BYTES * 2, STRUCT_HEX.length());
        assertEquals(STRUCT_HEX, HexFormat.of().formatHex(DEST.encodeStruct(1)));
    }

    @Test
    void shouldReadPerftestsStructWhateverItsAlignmentBytesHold() throws IOException
    {
        // perftest copies the struct off its stack: the alignment bytes are whatever was there, and it sends its
        // own GID index, which the reader has no use for
        final String sent = STRUCT_HEX.substring(0, 40) + "deadbeef" + STRUCT_HEX.substring(48, 96) + "00000000" +
            "ffffffff";
        assertEquals(DEST, PerftestDest.decodeStruct(HexFormat.of().parseHex(sent)));
    }

    @Test
    void shouldRefuseAMessageShorterThanTheStruct()
    {
        final PerftestException ex = assertThrows(PerftestException.class,
            () -> PerftestDest.decodeStruct(new byte[PerftestDest.GID_BYTES / 2]));
        assertTrue(ex.getMessage().contains("54 bytes, not the 56"), ex.getMessage());
    }

    /** A QP's SENDs and receives, one message each, as the test scripts them. */
    private static final class ScriptedLink implements PerftestLink
    {
        private final Deque<byte[]> incoming = new ArrayDeque<>();
        private final List<String> steps = new ArrayList<>();

        @Override
        public void send(final byte[] message)
        {
            steps.add("send " + HexFormat.of().formatHex(message));
        }

        @Override
        public byte[] receive(final int size) throws IOException
        {
            steps.add("recv " + size);
            final byte[] next = incoming.poll();
            if (next == null)
            {
                throw new EOFException("nothing more from the peer");
            }
            return Arrays.copyOf(next, size);
        }
    }

    private static String hex(final byte[] bytes)
    {
        return HexFormat.of().formatHex(bytes);
    }

    @Test
    void shouldReceiveFirstAsTheServerAndEndWithoutDone() throws IOException
    {
        final ScriptedLink link = new ScriptedLink();
        link.incoming.add(PerftestVersion.encode("6.06"));
        link.incoming.add(HexFormat.of().parseHex("00001000"));
        link.incoming.add(HexFormat.of().parseHex("00000040"));
        link.incoming.add("3\0".getBytes(StandardCharsets.US_ASCII));
        link.incoming.add(HexFormat.of().parseHex(STRUCT_HEX));
        link.incoming.add(HexFormat.of().parseHex(STRUCT_HEX));
        final PerftestChannel server = PerftestChannel.overRdmaCm(link, false, 1);
        assertEquals("6.06", server.versions());
        assertArrayEquals(new int[] {4096, 64}, server.sysData(4096, 64));
        assertEquals(3, server.mtu(5), "the smaller MTU, 1024");
        assertEquals(DEST, server.handshake(DEST));
        server.close(DEST);
        assertEquals(List.of("recv 16", "send " + hex(PerftestVersion.encode(PerftestVersion.OURS)),
            "recv 4", "send 00001000", "recv 4", "send 00000040", "recv 2", "send 3500",
            "recv 56", "send " + STRUCT_HEX, "recv 56", "send " + STRUCT_HEX), link.steps,
            "each message one SEND after the peer's, and no \"done\" after the last swap");
    }

    @Test
    void shouldSendFirstAsTheClient() throws IOException
    {
        final ScriptedLink link = new ScriptedLink();
        link.incoming.add(HexFormat.of().parseHex(STRUCT_HEX));
        final PerftestChannel client = PerftestChannel.overRdmaCm(link, true, 1);
        assertEquals(DEST, client.handshake(DEST));
        assertEquals(List.of("send " + STRUCT_HEX, "recv 56"), link.steps);
    }
}
