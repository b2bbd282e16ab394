package io.rdma4j.tools;

import io.rdma4j.cm.PortSpace;
import io.rdma4j.tools.cmatose.CmatoseCommand;
import io.rdma4j.tools.rping.RpingCommand;
import io.rdma4j.tools.udaddy.UdaddyCommand;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rping's, udaddy's and cmatose's flags, defaults and argument errors, without connecting anywhere.
 */
class CmToolsParsingTest
{
    private static <T> T parse(final Class<T> type, final String... args)
    {
        return type.cast(Main.commandLine().parseArgs(args).subcommand().commandSpec().userObject());
    }

    /**
     * Runs a command line in this JVM.
     */
    private static final class Run
    {
        final int status;
        final String out;
        final String err;

        Run(final String... args)
        {
            final var cli = Main.commandLine();
            final StringWriter outText = new StringWriter();
            final StringWriter errText = new StringWriter();
            cli.setOut(new PrintWriter(outText, true));
            cli.setErr(new PrintWriter(errText, true));
            status = cli.execute(args);
            out = outText.toString();
            err = errText.toString();
        }
    }

    @Test
    void shouldApplyRpingDefaults()
    {
        final RpingCommand rping = parse(RpingCommand.class, "rping", "-s");

        assertTrue(rping.isServer());
        assertNull(rping.address());
        assertNull(rping.sourceAddress());
        assertEquals(7174, rping.port());
        assertEquals(0, rping.count());
        assertEquals(64, rping.size());
        assertFalse(rping.verbose());
        assertFalse(rping.validate());
        assertFalse(rping.debug());
        assertFalse(rping.persistent());
    }

    @Test
    void shouldParseRpingFlagsClusteredAsGetoptDoes()
    {
        final RpingCommand rping = parse(RpingCommand.class, "rping", "-c", "-vVd", "-a", "127.0.0.9", "-I",
            "127.0.0.10", "-p", "0x1c07", "-C", "25", "-S", "1000");

        assertFalse(rping.isServer());
        assertEquals("127.0.0.9", rping.address());
        assertEquals("127.0.0.10", rping.sourceAddress());
        assertEquals(7175, rping.port());
        assertEquals(25, rping.count());
        assertEquals(1000, rping.size());
        assertTrue(rping.verbose());
        assertTrue(rping.validate());
        assertTrue(rping.debug());
        assertTrue(parse(RpingCommand.class, "rping", "-s", "-P").persistent());
    }

    @Test
    void shouldLetTheLastOfServerAndClientWin()
    {
        assertFalse(parse(RpingCommand.class, "rping", "-s", "-c").isServer());
        assertTrue(parse(RpingCommand.class, "rping", "-c", "-s").isServer());
        assertFalse(parse(RpingCommand.class, "rping", "-v").hasRole());
    }

    @Test
    void shouldRefuseRpingSizesOutsideItsRange()
    {
        final Run small = new Run("rping", "-s", "-S", "25");
        final Run large = new Run("rping", "-s", "-S", "65536");

        assertEquals(22, small.status);
        assertTrue(small.err.contains("Invalid size 25 (valid range is 26 to 65536)"), small.err);
        assertEquals(22, large.status);
        assertTrue(large.err.contains("Invalid size 65536 (valid range is 26 to 65536)"), large.err);
    }

    @Test
    void shouldRefuseANegativeRpingCount()
    {
        final Run run = new Run("rping", "-c", "-C", "-1");

        assertEquals(22, run.status);
        assertTrue(run.err.contains("Invalid count -1"), run.err);
    }

    @Test
    void shouldPrintUsageWithEinvalWithoutARole()
    {
        final Run run = new Run("rping", "-v");

        assertEquals(22, run.status);
        assertTrue(run.out.contains("Usage: rdma4j rping"), run.out);
    }

    @Test
    void shouldRefuseUnknownRpingOptionsWithEinval()
    {
        // rping's getopt string names -t but nothing handles it: usage and EINVAL
        assertEquals(22, new Run("rping", "-s", "-t", "3").status);
        assertEquals(22, new Run("rping", "-s", "--no-such-flag").status);
    }

    @Test
    void shouldApplyUdaddyDefaults()
    {
        final UdaddyCommand udaddy = parse(UdaddyCommand.class, "udaddy");

        assertNull(udaddy.serverAddress());
        assertNull(udaddy.bindAddress());
        assertEquals(PortSpace.UDP, udaddy.portSpace());
        assertEquals(1, udaddy.connections());
        assertEquals(10, udaddy.count());
        assertEquals(100, udaddy.size());
        assertNull(udaddy.tos());
        assertEquals(0, udaddy.timeoutSeconds());
        assertEquals(7174, UdaddyCommand.PORT);
    }

    @Test
    void shouldParseUdaddyFlags()
    {
        final UdaddyCommand udaddy = parse(UdaddyCommand.class, "udaddy", "-s", "127.0.0.9", "-b", "127.0.0.10",
            "-c", "4", "-C", "50", "-S", "0x200", "-t", "0x1b8", "--timeout", "30");

        assertEquals("127.0.0.9", udaddy.serverAddress());
        assertEquals("127.0.0.10", udaddy.bindAddress());
        assertEquals(4, udaddy.connections());
        assertEquals(50, udaddy.count());
        assertEquals(512, udaddy.size());
        assertEquals(0xb8, udaddy.tos(), "the type of service is a byte, as udaddy's uint8_t");
        assertEquals(30, udaddy.timeoutSeconds());
    }

    @Test
    void shouldTakeTheLastPortSpaceGiven()
    {
        assertEquals(PortSpace.IPOIB, parse(UdaddyCommand.class, "udaddy", "-P", "ipoib").portSpace());
        assertEquals(PortSpace.IPOIB, parse(UdaddyCommand.class, "udaddy", "-p", "0x0111", "-P", "IPoIB").portSpace());
        assertEquals(PortSpace.UDP, parse(UdaddyCommand.class, "udaddy", "-P", "ipoib", "-p", "0x0111").portSpace());
        assertEquals(PortSpace.IPOIB, parse(UdaddyCommand.class, "udaddy", "-p", "2").portSpace());
    }

    @Test
    void shouldExitOneOnBadUdaddyArguments()
    {
        final Run unknownSpace = new Run("udaddy", "-p", "0x1234");

        assertEquals(1, new Run("udaddy", "--no-such-flag").status);
        assertEquals(1, new Run("udaddy", "-C", "ten").status);
        assertEquals(1, unknownSpace.status);
        assertTrue(unknownSpace.err.contains("unknown port space 0x1234"), unknownSpace.err);
    }

    @Test
    void shouldReportGidAddressesAsAnUnsupportedFamily()
    {
        // RoCE has no AF_IB: rdma_getaddrinfo fails, and udaddy returns its code (EAI_FAMILY, -6)
        final Run run = new Run("udaddy", "-s", "127.0.0.9", "-b", "127.0.0.10", "-f", "gid");

        assertEquals(-6 & 0xFF, run.status);
        assertTrue(run.out.contains("rdma_getaddrinfo error: Address family for hostname not supported"), run.out);
        assertTrue(run.out.endsWith("test complete" + System.lineSeparator() + "return status -6"
            + System.lineSeparator()), run.out);
    }

    @Test
    void shouldPrintHelpForBoth()
    {
        final Run rping = new Run("rping", "--help");
        final Run udaddy = new Run("udaddy", "--help");

        assertEquals(0, rping.status);
        assertTrue(rping.out.contains("-P") && rping.out.contains("-V"), rping.out);
        assertEquals(0, udaddy.status);
        assertTrue(udaddy.out.contains("-S=message_size"), udaddy.out);
    }

    @Test
    void shouldApplyCmatoseDefaults()
    {
        final CmatoseCommand cmatose = parse(CmatoseCommand.class, "cmatose");

        assertNull(cmatose.serverAddress());
        assertNull(cmatose.bindAddress());
        assertNull(cmatose.addressFormat());
        assertEquals(PortSpace.TCP, cmatose.portSpace());
        assertEquals(1, cmatose.connections());
        assertEquals(10, cmatose.count());
        assertEquals(100, cmatose.size());
        assertEquals(7471, cmatose.port());
        assertNull(cmatose.tos());
        assertNull(cmatose.ackTimeout());
        assertFalse(cmatose.migrate());
        assertEquals(0, cmatose.timeoutSeconds());
    }

    @Test
    void shouldParseCmatoseFlagsUnderEitherName()
    {
        final CmatoseCommand cmatose = parse(CmatoseCommand.class, "ucmatose", "-s", "127.0.0.9", "-b",
            "127.0.0.10", "-f", "ip", "-P", "ib", "-c", "8", "-C", "0x20", "-S", "4096", "-t", "0x1b8", "-p", "9000",
            "-m", "-a", "18", "--timeout", "30");

        assertEquals("127.0.0.9", cmatose.serverAddress());
        assertEquals("127.0.0.10", cmatose.bindAddress());
        assertEquals("ip", cmatose.addressFormat());
        assertEquals(PortSpace.IB, cmatose.portSpace());
        assertEquals(8, cmatose.connections());
        assertEquals(32, cmatose.count());
        assertEquals(4096, cmatose.size());
        assertEquals(0xb8, cmatose.tos(), "the type of service is a byte, as cmatose's uint8_t");
        assertEquals(9000, cmatose.port());
        assertTrue(cmatose.migrate());
        assertEquals(18, cmatose.ackTimeout());
        assertEquals(30, cmatose.timeoutSeconds());
    }

    @Test
    void shouldWarnOfAnUnknownPortSpaceAndKeepTcp()
    {
        final Run run = new Run("cmatose", "-P", "udp", "-c", "0");

        assertTrue(run.err.contains("Warning: unknown port space format"), run.err);
        assertEquals(PortSpace.TCP, parse(CmatoseCommand.class, "cmatose", "-P", "udp").portSpace());
    }

    @Test
    void shouldExitOneOnBadCmatoseArguments()
    {
        final Run noConnections = new Run("cmatose", "-c", "0");

        assertEquals(1, new Run("cmatose", "--no-such-flag").status);
        assertEquals(1, new Run("ucmatose", "-C", "ten").status);
        assertEquals(1, noConnections.status);
        assertTrue(noConnections.err.contains("-c must be at least 1"), noConnections.err);
        assertEquals(1, new Run("cmatose", "-S", "-1").status);
    }

    @Test
    void shouldReturnTheLookupCodeForAGidAddress()
    {
        // RoCE has no AF_IB: rdma_getaddrinfo fails, and cmatose returns its code (EAI_FAMILY, -6)
        final Run run = new Run("cmatose", "-s", "127.0.0.9", "-b", "127.0.0.10", "-f", "gid");

        assertEquals(-6 & 0xFF, run.status);
        assertEquals(String.join(System.lineSeparator(), "cmatose: starting client",
            "cmatose: getaddrinfo error: Address family for hostname not supported", "test complete",
            "return status -6", ""), run.out);
    }

    @Test
    void shouldListCmatoseUnderBothNames()
    {
        final Run help = new Run("--help");
        final Run cmatose = new Run("ucmatose", "--help");

        assertTrue(help.out.contains("cmatose, ucmatose"), help.out);
        assertEquals(0, cmatose.status);
        assertTrue(cmatose.out.contains("-C=message_count") && cmatose.out.contains("-a=ack_timeout"), cmatose.out);
    }
}
