package io.rdma4j.tools.pingpong;

import io.rdma4j.tools.Main;
import io.rdma4j.verbs.Gid;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What each tool's QPs say and size differently, as rdma-core's four tools do. The session prints
 * these words; the end-to-end tests reach only some of them (the failures need a failing device).
 */
class PingPongQpsTest
{
    /** -r in every command line below. */
    private static final int RX_DEPTH = 100;
    /** -q in srq_pingpong's. */
    private static final int SRQ_QPS = 4;
    private static final List<PingPongDest> ONE_ADDRESS =
        List.of(new PingPongDest(0, 0x11, 0x22, Gid.parse("::ffff:127.0.0.1")));

    /**
     * @param commandLine a pingpong tool's command line.
     * @return the QPs of that run, as parsed (not made).
     */
    private static PingPongQps qpsOf(final String... commandLine)
    {
        final CommandLine.ParseResult parsed = Main.commandLine().parseArgs(commandLine);
        final PingPongConfig config = ((PingPongCommand)parsed.subcommand().commandSpec().userObject()).config();
        return config.kind().qps(config);
    }

    @Test
    void shouldBeRcPingpong()
    {
        final PingPongQps rc = qpsOf("rc_pingpong", "-r", "100");

        assertEquals(1, rc.count(), "QPs");
        assertEquals(0, rc.payloadOffset(), "bytes in front of the payload");
        assertEquals("", rc.qpSuffix(0), "a QP is just 'QP' in messages");
        assertEquals(", ", rc.localSeparator(), "before the GID on the local address line");
        assertEquals("can't read sgid of index 3", rc.gidFailure(3));
        assertEquals("boom" + System.lineSeparator() + "parse WC failed 2", rc.parseFailed("boom", 2),
            "rc_pingpong's main adds a line to parse_single_wc's");
        assertEquals(2, rc.pollBatch(), "completions polled at a time");
        assertEquals(1, rc.refillAt(), "receives left when more are posted");
        assertTrue(rc.reliable(), "lingers for a retransmitting peer");
        assertEquals(ONE_ADDRESS, rc.wire(ONE_ADDRESS));
    }

    @Test
    void shouldBeUcPingpong()
    {
        final PingPongQps uc = qpsOf("uc_pingpong", "-r", "100");

        assertEquals(1, uc.count(), "QPs");
        assertEquals(0, uc.payloadOffset(), "bytes in front of the payload");
        assertEquals(", ", uc.localSeparator(), "before the GID on the local address line");
        assertEquals("can't read sgid of index 3", uc.gidFailure(3));
        assertEquals("boom", uc.parseFailed("boom", 2));
        assertEquals(2, uc.pollBatch(), "completions polled at a time");
        assertFalse(uc.reliable(), "no ACKs: nothing to linger for");
        assertEquals(ONE_ADDRESS, uc.wire(ONE_ADDRESS));
    }

    @Test
    void shouldBeUdPingpong()
    {
        final PingPongQps ud = qpsOf("ud_pingpong", "-r", "100");

        assertEquals(1, ud.count(), "QPs");
        assertEquals(40, ud.payloadOffset(), "the GRH slot in front of the payload");
        assertEquals(": ", ud.localSeparator(), "ud_pingpong's local address line has ':' before the GID");
        assertEquals("Could not get local gid for gid index 3", ud.gidFailure(3));
        assertEquals("boom", ud.parseFailed("boom", 2));
        assertEquals(2, ud.pollBatch(), "completions polled at a time");
        assertFalse(ud.reliable(), "no ACKs: nothing to linger for");
        assertEquals(ONE_ADDRESS, ud.wire(ONE_ADDRESS));
    }

    @Test
    void shouldBeSrqPingpong()
    {
        final PingPongQps srq = qpsOf("srq_pingpong", "-r", "100", "-q", "4");

        assertEquals(SRQ_QPS, srq.count(), "-q QPs");
        assertEquals(0, srq.payloadOffset(), "bytes in front of the payload");
        assertEquals("[2]", srq.qpSuffix(2), "messages name the QP by index");
        assertEquals(", ", srq.localSeparator(), "before the GID on the local address line");
        assertEquals("Could not get local gid for gid index 3", srq.gidFailure(3));
        assertEquals("boom", srq.parseFailed("boom", 2));
        assertEquals(SRQ_QPS + RX_DEPTH, srq.pollBatch(), "everything there can be at once");
        assertEquals(SRQ_QPS, srq.refillAt(), "receives left when more are posted");
        assertTrue(srq.reliable(), "RC QPs: lingers for a retransmitting peer");
        final List<PingPongDest> wire = srq.wire(ONE_ADDRESS);
        assertEquals(SrqQps.MAX_QP, wire.size(), "srq_pingpong always exchanges MAX_QP addresses");
        assertEquals(ONE_ADDRESS.getFirst(), wire.getFirst());
        assertEquals(PingPongDest.EMPTY, wire.getLast(), "zeroes for the QPs it does not use");
    }
}
