package io.rdma4j.tools.pingpong;

import io.rdma4j.tools.Main;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Flags and defaults of the four pingpong commands, and the refusals that happen before any device
 * is opened.
 */
class PingPongCommandTest
{
    private static PingPongConfig parse(final String... args)
    {
        final CommandLine.ParseResult result = Main.commandLine().parseArgs(args);
        final PingPongCommand command = (PingPongCommand)result.subcommand().commandSpec().userObject();
        return command.config();
    }

    private static int execute(final StringWriter err, final String... args)
    {
        final CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));
        return cl.execute(args);
    }

    @Test
    void shouldUseRdmaCoreDefaultsAndGidIndexZero()
    {
        final PingPongConfig rc = parse("rc_pingpong");
        assertEquals(18515, rc.tcpPort());
        assertEquals(1, rc.ibPort());
        assertEquals(4096, rc.size());
        assertEquals(1024, rc.mtu().bytes());
        assertEquals(500, rc.rxDepth());
        assertEquals(1000, rc.iters());
        assertEquals(0, rc.sl());
        assertEquals(0, rc.gidIndex());
        assertNull(rc.serverName());
        assertEquals(1024, parse("ud_pingpong").size());
        assertEquals(16, parse("srq_pingpong").numQp());
    }

    @Test
    void shouldTakeEveryFlagAndTheServerName()
    {
        final PingPongConfig c = parse("srq_pingpong", "-p", "0x4000", "-d", "soft0", "-i", "1", "-s", "512", "-m",
            "2048", "-r", "100", "-n", "10", "-l", "3", "-e", "-g", "-1", "-c", "-q", "4", "server.example");
        assertEquals(0x4000, c.tcpPort());
        assertEquals("soft0", c.deviceName());
        assertEquals(512, c.size());
        assertEquals(2048, c.mtu().bytes());
        assertEquals(100, c.rxDepth());
        assertEquals(10, c.iters());
        assertEquals(3, c.sl());
        assertTrue(c.useEvents());
        assertEquals(-1, c.gidIndex());
        assertTrue(c.validate());
        assertEquals(4, c.numQp());
        assertEquals("server.example", c.serverName());
    }

    @Test
    void shouldRefuseWhatRdmaCoreRefusesWithItsWords()
    {
        StringWriter err = new StringWriter();
        assertEquals(1, execute(err, "srq_pingpong", "-q", "600", "-r", "500"));
        assertEquals("rx_depth 500 is too small for 600 QPs -- must have at least one receive per QP.",
            err.toString().strip());
        err = new StringWriter();
        assertEquals(1, execute(err, "srq_pingpong", "-q", "300", "-r", "1000"));
        assertEquals("num_qp 300 must be less than 255", err.toString().strip());
        err = new StringWriter();
        assertEquals(1, execute(err, "rc_pingpong", "-P"));
        assertEquals("prefetch is valid only with on-demand memory region", err.toString().strip());
        err = new StringWriter();
        assertEquals(1, execute(err, "rc_pingpong", "-o", "-j"));
        assertEquals("DM memory region can't be on demand", err.toString().strip());
        assertEquals(1, execute(new StringWriter(), "rc_pingpong", "-m", "1000"));
        assertEquals(1, execute(new StringWriter(), "rc_pingpong", "-p", "70000"));
        assertEquals(1, execute(new StringWriter(), "rc_pingpong", "a", "b"));
        assertEquals(1, execute(new StringWriter(), "ud_pingpong", "-m", "1024"));
    }
}
