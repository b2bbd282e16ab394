package io.rdma4j.tools.perf;

import io.rdma4j.tools.Main;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpType;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rdma4j perf}'s flags, defaults, and the combinations it refuses before opening anything.
 */
class PerfCommandTest
{
    private static PerfConfig parse(final String... args)
    {
        final CommandLine.ParseResult result = Main.commandLine().parseArgs(args);
        final PerfCommand command = (PerfCommand)result.subcommand().commandSpec().userObject();
        return command.config();
    }

    private static String refusal(final String... args)
    {
        return assertThrows(CommandLine.ParameterException.class, () -> parse(args)).getMessage();
    }

    @Test
    void shouldUsePerftestDefaults()
    {
        final PerfConfig lat = parse("perf", "send_lat");
        assertEquals(PerfTest.SEND_LAT, lat.test());
        assertEquals(QpType.RC, lat.transport());
        assertEquals(List.of(64), lat.sizes());
        assertEquals(1000, lat.iterations());
        assertEquals(18515, lat.tcpPort());
        assertEquals(1, lat.numQp());
        assertFalse(lat.events());
        assertFalse(lat.isClient());
        assertNull(lat.histogram());
        final PerfConfig bw = parse("perf", "send_bw");
        assertEquals(List.of(65536), bw.sizes());
        assertEquals(5000, bw.iterations());
        assertEquals(128, bw.txDepth());
        assertEquals(1, bw.postList(), "one WR a postSend unless -l");
        assertEquals(32, parse("perf", "send_bw", "-l", "32").postList());
        assertEquals(UdpBaseline.MAX_DATAGRAM, bw.baselineDatagram(), "the baseline's datagrams as large as UDP allows");
        assertEquals(8192, parse("perf", "send_bw", "--baseline-datagram", "8192").baselineDatagram());
        assertEquals(List.of(4096), parse("perf", "send_bw", "-c", "UD").sizes(), "UD: one packet at most");
        assertEquals(List.of(8), parse("perf", "atomic_lat").sizes());
        assertFalse(lat.isFanOut());
        final PerfConfig mcast = parse("perf", "send_lat", "-c", "UD", "-M", "3");
        assertTrue(mcast.isFanOut());
        assertEquals(3, mcast.receivers());
        assertEquals("239.18.51.5", mcast.group());
    }

    @Test
    void shouldSpeakPerftestsExchangeForIbNamesWithPerftestsDefaults()
    {
        final PerfConfig lat = parse("perf", "ib_send_lat");
        assertTrue(lat.perftest(), "an ib_* name is perftest's tool: its exchange");
        assertEquals(PerfTest.SEND_LAT, lat.test());
        assertEquals(List.of(2), lat.sizes(), "perftest's latency size");
        assertEquals(1000, lat.iterations());
        assertEquals(0, lat.warmup(), "a perftest peer runs no warm-up");
        assertEquals(-1, lat.gidIndex(), "chosen once the device is open");
        assertEquals(5000, parse("perf", "ib_write_bw").iterations(), "perftest's write_bw count");
        assertEquals(1000, parse("perf", "ib_send_bw").iterations(), "perftest's other bandwidth count");
        assertFalse(parse("perf", "send_lat").perftest(), "rdma4j's own exchange stays the default");
        assertFalse(parse("perf", "ib_send_lat", "--exchange", "rdma4j").perftest());
        final PerfConfig flagged = parse("perf", "read_lat", "--exchange", "perftest", "-d", "rxe0", "-x", "1");
        assertTrue(flagged.perftest());
        assertEquals("rxe0", flagged.device());
        assertEquals(1, flagged.gidIndex());
        assertEquals(5, parse("perf", "ib_send_lat", "--warmup", "5").warmup(), "the first 5 of -n go unrecorded");
        assertTrue(refusal("perf", "ib_send_lat", "--warmup", "1000").contains("fewer than -n 1000"));
        assertTrue(refusal("perf", "ib_send_bw", "--warmup", "5").contains("the latency tests only"));
        assertTrue(refusal("perf", "ib_send_lat", "-c", "UD", "-M", "2").startsWith("-M"));
        assertTrue(refusal("perf", "ib_send_lat", "-a").startsWith("-a"));
        assertTrue(refusal("perf", "ib_send_bw", "--baseline-datagram", "8192").contains("no UDP baseline"));
        assertTrue(refusal("perf", "send_lat", "--exchange", "ib").contains("expected perftest or rdma4j"));
    }

    @Test
    void shouldTakeEveryFlagAndTheServer()
    {
        final PerfConfig c = parse("perf", "write_bw", "-c", "uc", "-s", "4096", "-n", "77", "--warmup", "5",
            "-t", "16", "-r", "64", "-I", "128", "-e", "-q", "3", "-p", "19000", "--histogram", "h.hlog",
            "10.0.0.1");
        assertEquals(PerfTest.WRITE_BW, c.test());
        assertEquals(QpType.UC, c.transport());
        assertEquals(List.of(4096), c.sizes());
        assertEquals(77, c.iterations());
        assertEquals(5, c.warmup());
        assertEquals(16, c.txDepth());
        assertEquals(64, c.rxDepth());
        assertEquals(128, c.inline());
        assertTrue(c.events());
        assertEquals(3, c.numQp());
        assertEquals(19000, c.tcpPort());
        assertEquals(Path.of("h.hlog"), c.histogram());
        assertEquals("10.0.0.1", c.serverName());
        assertTrue(c.isClient());
    }

    @Test
    void shouldRunEveryPowerOfTwoWithAll()
    {
        final List<Integer> rc = parse("perf", "send_lat", "-a").sizes();
        assertEquals(23, rc.size());
        assertEquals(2, rc.getFirst());
        assertEquals(1 << 23, rc.getLast());
        final List<Integer> ud = parse("perf", "send_lat", "-a", "-c", "UD").sizes();
        assertEquals(List.of(2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096), ud);
    }

    @Test
    void shouldRefuseWhatCannotRun()
    {
        assertTrue(refusal("perf", "read_lat", "-c", "UC").contains("read_lat does not run on UC"));
        assertTrue(refusal("perf", "atomic_lat", "-c", "UD").contains("atomic_lat does not run on UD"));
        assertTrue(refusal("perf", "write_bw", "-c", "UD").contains("RDMA WRITE needs RC or UC"));
        assertTrue(refusal("perf", "send_lat", "-q", "2").contains("the latency tests use one QP"));
        assertTrue(refusal("perf", "write_lat", "-e").contains("no events mode"));
        assertTrue(refusal("perf", "send_lat", "-c", "UD", "-s", "8192").contains("1..4096 on UD"));
        assertTrue(refusal("perf", "atomic_lat", "-s", "16").contains("atomics are 8 bytes"));
        assertTrue(refusal("perf", "send_lat", "-c", "XRC").contains("expected RC, UC or UD"));
        assertTrue(refusal("perf", "recv_lat").contains("unknown test 'recv_lat'"));
        assertTrue(refusal("perf", "send_bw", "-t", "0").contains("-t 0: must be 1 or more"));
        assertTrue(refusal("perf", "send_bw", "-l", "0").contains("-l 0: must be 1 or more"));
        assertTrue(refusal("perf", "send_lat", "--progress", "fast").contains("expected thread, waiting or polling"));
        assertTrue(refusal("perf", "send_lat", "-M", "2").contains("multicast is send_lat or send_bw on UD"));
        assertTrue(refusal("perf", "write_bw", "-c", "UD", "-M", "2").contains("RDMA WRITE needs RC or UC"));
        assertTrue(refusal("perf", "send_bw", "-c", "UD", "-M", "2", "-q", "2").contains("uses one QP"));
        assertTrue(refusal("perf", "send_bw", "-c", "UD", "-M", "300").contains("1..255 receivers"));
        assertTrue(refusal("perf", "send_bw", "--baseline-datagram", "65508").contains("must be 1..65507"));
    }

    @Test
    void shouldTakeMinusRAsPerftestsRdmaCmOnRcAndUd()
    {
        final PerfConfig cm = parse("perf", "send_lat", "-R", "-p", "20000");
        assertTrue(cm.rdmaCm());
        assertTrue(cm.perftest(), "-R is perftest's exchange, whatever the test's name");
        assertEquals(20000, cm.tcpPort(), "-p is the rdma_cm port");
        assertFalse(parse("perf", "ib_send_lat").rdmaCm());
        assertTrue(refusal("perf", "ib_send_lat", "-R", "-c", "UC").contains("librdmacm has no UC"));
        assertEquals(QpType.UD, parse("perf", "ib_send_lat", "-R", "-c", "UD").transport(), "UD through SIDR");
        assertTrue(refusal("perf", "ib_write_lat", "-R", "-c", "UD").contains("does not run on UD"));
        assertTrue(refusal("perf", "send_lat", "-R", "--exchange", "rdma4j").contains("-R: rdma_cm is perftest's"));
    }

    @Test
    void shouldTakePerftestsMulticastFlagsWithPerftestsExchangeOnly()
    {
        final PerfConfig g = parse("perf", "ib_send_bw", "-g", "-M", "0:0:0:0:0:0:0:0:0:0:255:255:239:1:1:1");
        assertTrue(g.mcg());
        assertEquals(QpType.UD, g.transport(), "perftest's -g makes the test UD");
        assertEquals("0:0:0:0:0:0:0:0:0:0:255:255:239:1:1:1", g.mgid(), "-M is perftest's MGID here");
        assertEquals(0, g.receivers(), "not rdma4j's fan-out");
        assertEquals("0xff:0x0e:0:0:0:0:0:0:0:0:0:0:0:01:0:012",
            parse("perf", "ib_send_lat", "-g", "--MGID", "0xff:0x0e:0:0:0:0:0:0:0:0:0:0:0:01:0:012").mgid());
        assertNull(parse("perf", "ib_send_bw", "-g").mgid(), "perftest's default group");
        assertEquals(3, parse("perf", "send_bw", "-c", "UD", "-M", "3").receivers(), "rdma4j's -M is a count");
        assertTrue(refusal("perf", "send_bw", "-c", "UD", "-M", "0:0:1").contains("a count of receivers"));
        assertTrue(refusal("perf", "send_bw", "-c", "UD", "-g").contains("with perftest's exchange"));
        assertTrue(refusal("perf", "ib_send_bw", "-M", "0:0:0:0:0:0:0:0:0:0:255:255:239:1:1:1")
            .contains("the group of -g, which is not given"));
        assertTrue(refusal("perf", "ib_write_bw", "-g").contains("send_lat or send_bw on UD"));
        assertTrue(refusal("perf", "ib_send_bw", "-g", "-R").contains("no multicast with rdma_cm"));
        assertTrue(refusal("perf", "ib_send_bw", "-g", "-q", "2").contains("one QP"));
        assertTrue(refusal("perf", "ib_send_bw", "-g", "-M", "255:1:2").contains("16 byte values"));
        assertTrue(refusal("perf", "ib_send_bw", "-g", "-M", "0:0:0:0:0:0:0:0:0:0:255:255:239:1:1:256")
            .contains("byte 16 (256) is not a number from 0 to 255"));
        assertTrue(refusal("perf", "ib_send_bw", "-g", "-M", "0:0:0:0:0:0:0:0:0:0:255:255:10:1:1:1")
            .contains("is not a multicast GID"));
    }

    @Test
    void shouldGiveTheRcQpsPerftestsAckTimeoutOrMinus_u()
    {
        final PerfConfig defaults = parse("perf", "ib_send_bw");
        assertEquals(14, defaults.qpTimeout(), "perftest's default, about 67 ms");
        assertEquals(14, RdmaPeer.rts(defaults, 7).timeout());
        final PerfConfig slow = parse("perf", "ib_send_bw", "-u", "18");
        final QpAttr rts = RdmaPeer.rts(slow, 7);
        assertEquals(18, rts.timeout(), "the RC QP's move to RTS carries -u");
        assertEquals(7, rts.sqPsn());
        assertEquals(0, parse("perf", "send_bw", "--qp-timeout", "0").qpTimeout(), "0: no timeout");
        assertTrue(refusal("perf", "send_bw", "-u", "32").contains("5-bit exponent"));
        assertTrue(refusal("perf", "send_bw", "-u", "-1").contains("5-bit exponent"));
        assertTrue(refusal("perf", "ib_send_bw", "-R", "-u", "18").contains("rdma_cm connects those QPs"));
    }

    @Test
    void shouldLeadTheUsageWithPerftestsNames()
    {
        final String usage = Main.commandLine().getSubcommands().get("perf").getUsageMessage(CommandLine.Help.Ansi.OFF);
        final String test = usage.substring(usage.indexOf("      <test>")).strip();
        assertTrue(test.replaceAll("\\s+", " ").startsWith("<test> ib_send_lat, ib_send_bw,"), test);
        assertTrue(usage.contains("Server: rdma4j perf ib_send_lat"), usage);
        assertTrue(usage.indexOf("ib_send_lat") < usage.indexOf(" send_lat"), usage);
    }

    @Test
    void shouldWriteTheCommandLineThatSpeaksPerftestsExchange()
    {
        assertEquals("rdma4j perf ib_send_lat -c RC -n 10 --address 127.0.0.12 127.0.0.11", perftestCommand("perf",
            "send_lat", "-c", "RC", "--exchange", "rdma4j", "-n", "10", "--address", "127.0.0.12", "--histogram",
            "h.log", "127.0.0.11"));
        assertEquals("rdma4j perf ib_write_bw -s 4096", perftestCommand("perf", "-a", "write_bw",
            "--baseline-datagram=8192", "-s", "4096"));
        assertEquals("rdma4j perf ib_read_lat", perftestCommand("perf", "ib_read_lat", "--exchange=rdma4j"));
    }

    private static String perftestCommand(final String... args)
    {
        final CommandLine.ParseResult result = Main.commandLine().parseArgs(args);
        return ((PerfCommand)result.subcommand().commandSpec().userObject()).perftestCommand();
    }
}
