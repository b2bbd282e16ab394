package io.rdma4j.tools;

import io.rdma4j.cm.PortSpace;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CommandParsingTest
{
    private static <T> T parse(final Class<T> type, final String... args)
    {
        final CommandLine.ParseResult result = Main.commandLine().parseArgs(args);
        final CommandLine.ParseResult sub = result.subcommand();
        return type.cast(sub.commandSpec().userObject());
    }

    @Test
    void shouldApplyMckeyDefaults()
    {
        final McKeyCommand mckey = parse(McKeyCommand.class, "mckey", "-m", "239.1.2.3");

        assertEquals("239.1.2.3", mckey.group());
        assertFalse(mckey.sender());
        assertNull(mckey.bindAddress());
        assertEquals(1, mckey.connections());
        assertEquals(10, mckey.count());
        assertEquals(100, mckey.size());
        assertEquals(PortSpace.UDP, mckey.portSpace());
        assertFalse(mckey.sendOnly());
        assertFalse(mckey.blockLoopback());
        assertEquals(3000, mckey.delayMs());
        assertEquals(30, mckey.timeoutSeconds());
        assertEquals(10, mckey.expected());
    }

    @Test
    void shouldParseMckeyFlags()
    {
        final McKeyCommand mckey = parse(McKeyCommand.class, "mckey", "-m", "239.255.0.1", "-s", "-b", "127.0.0.3",
            "-c", "2", "-C", "500", "-S", "64", "-p", "0x0002", "-o", "-l", "--delay-ms", "10", "--timeout", "5");

        assertTrue(mckey.sender());
        assertEquals("127.0.0.3", mckey.bindAddress());
        assertEquals(2, mckey.connections());
        assertEquals(500, mckey.count());
        assertEquals(64, mckey.size());
        assertEquals(PortSpace.IPOIB, mckey.portSpace());
        assertTrue(mckey.sendOnly());
        assertTrue(mckey.blockLoopback());
        assertEquals(10, mckey.delayMs());
        assertEquals(5, mckey.timeoutSeconds());
        assertEquals(500, mckey.expected());
    }

    @Test
    void shouldLetASendOnlyMemberExpectNothing()
    {
        final McKeyCommand mckey = parse(McKeyCommand.class, "mckey", "-m", "239.1.2.3", "-o", "--expect", "0");

        assertEquals(0, mckey.expected());
    }

    @Test
    void shouldParseDevinfoFlags()
    {
        final DevinfoCommand plain = parse(DevinfoCommand.class, "devinfo");
        final DevinfoCommand full = parse(DevinfoCommand.class, "devinfo", "-d", "soft0", "-i", "1", "-v", "-l");

        assertNull(plain.deviceName());
        assertEquals(0, plain.port());
        assertFalse(plain.verbose());
        assertFalse(plain.list());
        assertEquals("soft0", full.deviceName());
        assertEquals(1, full.port());
        assertTrue(full.verbose());
        assertTrue(full.list());
    }

    @Test
    void shouldApplyDemoDefaults()
    {
        final DemoCommand demo = parse(DemoCommand.class, "demo");
        final DemoCommand small = parse(DemoCommand.class, "demo", "-C", "50", "-S", "32", "-m", "239.9.9.9");

        assertEquals(1000, demo.count());
        assertEquals(100, demo.size());
        assertEquals("239.255.0.1", demo.group());
        assertEquals(List.of("127.0.0.11", "127.0.0.12", "127.0.0.13"), demo.receiverAddresses());
        assertEquals(50, small.count());
        assertEquals(32, small.size());
        assertEquals("239.9.9.9", small.group());
    }

    @Test
    void shouldRefuseUnknownOptionsAndTheIbOnlyMFlag()
    {
        final CommandLine cli = Main.commandLine();
        final StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(new StringWriter()));

        assertNotEquals(0, cli.execute("mckey", "--no-such-flag"));
        assertEquals(1, cli.execute("mckey", "-M", "ff12::1", "-b", "127.0.0.1"));
        assertTrue(out.toString().contains("AF_IB"));
    }

    @Test
    void shouldBuildOnlyTheSubcommandTheCommandLineNames()
    {
        // each subcommand's model costs a tool's start time: a run of one builds only that one
        assertEquals(Set.of("mckey"), Main.commandLine("mckey").getSubcommands().keySet());
        assertEquals(Set.of("rc_pingpong"), Main.commandLine("rc_pingpong").getSubcommands().keySet());
        assertEquals(Set.of("rmcast_sub"), Main.commandLine("rmcast_sub").getSubcommands().keySet());
        // an alias names its command too (picocli keys a command under each of its names)
        assertEquals(Set.of("cmatose", "ucmatose"), Main.commandLine("ucmatose").getSubcommands().keySet());
        // help, the version, a typo: every subcommand, so the usage lists them all as before (20 commands,
        // one of them under a second name)
        assertEquals(21, Main.commandLine("help").getSubcommands().size());
        assertEquals(21, Main.commandLine("--version").getSubcommands().size());
        assertEquals(21, Main.commandLine("mckye").getSubcommands().size());
        assertEquals(21, Main.commandLine().getSubcommands().size());
    }

    @Test
    void shouldRunASubcommandAndTheHelpThroughExecute()
    {
        // Main.execute prints to the process's own streams: what matters here is the status of each path
        assertEquals(0, Main.execute("mckey", "--help"));
        assertEquals(0, Main.execute("help", "rc_pingpong"));
        assertNotEquals(0, Main.execute("mckye"));
    }

    @Test
    void shouldPrintVersionAndHelp()
    {
        final CommandLine cli = Main.commandLine();
        final StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out));

        assertEquals(0, cli.execute("--version"));
        assertTrue(out.toString().startsWith("rdma4j "));
        assertEquals(0, cli.execute("mckey", "--help"));
        assertTrue(out.toString().contains("-o"));
    }
}
