package io.rdma4j.tools.pingpong;

import io.rdma4j.tools.common.CNumber;
import io.rdma4j.verbs.Gid;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The "%04x:%06x:%06x:%s" address message, checked against what rdma-core's tools printed in the
 * rxe captures (shared/reference/captures/pair/*_pingpong.*.txt).
 */
class PingPongDestTest
{
    /** rc_pingpong.a.txt, the server on 10.77.0.11: QPN 0x000012, PSN 0xf78f3a. */
    private static final PingPongDest RXE_RC_SERVER = new PingPongDest(0, 0x12, 0xf78f3a, Gid.parse("::ffff:10.77.0.11"));

    @Test
    void shouldWriteTheCapturedRcServerAsRdmaCoreDoes()
    {
        assertEquals("0000:000012:f78f3a:00000000000000000000ffff0a4d000b", RXE_RC_SERVER.toWireText());
        final byte[] wire = RXE_RC_SERVER.toWire();
        assertEquals(52, wire.length);
        assertEquals(0, wire[51], "the NUL goes on the wire: rdma-core writes sizeof msg bytes");
        assertArrayEquals("0000:000012:f78f3a:00000000000000000000ffff0a4d000b".getBytes(StandardCharsets.US_ASCII),
            Arrays.copyOf(wire, 51));
    }

    @Test
    void shouldReadTheCapturedUdClientMessage()
    {
        // ud_pingpong.b.txt, the client on 10.77.0.12: QPN 0x000011, PSN 0xe5efc5.
        final byte[] wire = Arrays.copyOf(
            "0000:000011:e5efc5:00000000000000000000ffff0a4d000c".getBytes(StandardCharsets.US_ASCII), 52);
        final PingPongDest dest = PingPongDest.fromWire(wire, wire.length);
        assertEquals(new PingPongDest(0, 0x11, 0xe5efc5, Gid.parse("::ffff:10.77.0.12")), dest);
    }

    @Test
    void shouldRoundTripEveryField()
    {
        final PingPongDest dest = new PingPongDest(0xbeef, 0xabcdef, 0x123456, Gid.parse("fe80::1:2:3:4"));
        final byte[] wire = dest.toWire();
        assertEquals(dest, PingPongDest.fromWire(wire, wire.length));
        assertEquals(dest, PingPongDest.parse(dest.toWireText()));
    }

    @Test
    void shouldWriteTheGidBytesInMemoryOrder()
    {
        // gid_to_wire_gid: htonl of each 32-bit word read from memory gives the bytes in order on any host.
        final byte[] raw = new byte[16];
        for (int i = 0; i < 16; i++)
        {
            raw[i] = (byte)(0x10 + i);
        }
        final Gid gid = Gid.of(raw);
        assertEquals("101112131415161718191a1b1c1d1e1f", PingPongDest.gidToWire(gid));
        assertEquals(gid, PingPongDest.wireToGid("101112131415161718191a1b1c1d1e1f"));
    }

    @Test
    void shouldSendZeroesForUnusedSrqSlots()
    {
        assertEquals("0000:000000:000000:00000000000000000000000000000000", PingPongDest.EMPTY.toWireText());
    }

    @Test
    void shouldDescribeBothEndsAsTheRdmaCoreToolsPrint()
    {
        assertEquals("  local address:  LID 0x0000, QPN 0x000012, PSN 0xf78f3a, GID ::ffff:10.77.0.11",
            RXE_RC_SERVER.describe("local address: ", ", "));
        assertEquals("  remote address: LID 0x0000, QPN 0x000012, PSN 0xf78f3a, GID ::ffff:10.77.0.11",
            RXE_RC_SERVER.describe("remote address:", ", "));
        // ud_pingpong.a.txt: its local line has a colon before the GID.
        assertEquals("  local address:  LID 0x0000, QPN 0x000011, PSN 0x19c902: GID ::ffff:10.77.0.11",
            new PingPongDest(0, 0x11, 0x19c902, Gid.parse("::ffff:10.77.0.11")).describe("local address: ", ": "));
        assertEquals("  local address:  LID 0x0000, QPN 0x000011, PSN 0x000001, GID ::",
            new PingPongDest(0, 0x11, 1, Gid.ZERO).describe("local address: ", ", "));
    }

    @Test
    void shouldRefuseWhatIsNotAnAddressMessage()
    {
        assertThrows(IllegalArgumentException.class, () -> PingPongDest.parse("done"));
        assertThrows(IllegalArgumentException.class, () -> PingPongDest.parse("0000:000012:f78f3a:ffff"));
        assertThrows(IllegalArgumentException.class,
            () -> PingPongDest.parse("0000:zz0012:f78f3a:00000000000000000000ffff0a4d000b"));
    }

    @Test
    void shouldReadNumbersAsStrtolWithBaseZero()
    {
        assertEquals(18515, CNumber.parse("18515"));
        assertEquals(0x4853, CNumber.parse("0x4853"));
        assertEquals(8, CNumber.parse("010"));
        assertEquals(0, CNumber.parse("0"));
        assertEquals(-1, CNumber.parse("-1"));
        assertThrows(RuntimeException.class, () -> CNumber.parse("12abc"));
    }
}
