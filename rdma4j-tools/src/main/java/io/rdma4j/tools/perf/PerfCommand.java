package io.rdma4j.tools.perf;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.provider.SoftProviderContext;
import io.rdma4j.tools.common.SoftAddress;
import io.rdma4j.verbs.ProgressMode;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code rdma4j perf}: perftest's latency and bandwidth tests over rdma4j's public verbs API, run
 * as perftest is (a server, then a client given the server's address, each a process with its own
 * soft device address), with the raw JDK UDP figure for the same exchange measured in the same run.
 * <p>
 * The two sides meet on a TCP connection and swap QP numbers, PSNs, GIDs and the rkey and address
 * of the buffer, as perftest does without {@code -R}: this tool measures the data path, and a set-up
 * that needs no connection manager keeps UC (which rdma_cm cannot connect) and the baseline's port
 * exchange on one path. With perftest's exchange, {@code -R} meets a perftest peer through rdma_cm as
 * perftest's own {@code -R} does (RC, and UD through SIDR), and {@code -g} is perftest's multicast SEND test.
 */
@Command(name = "perf", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        // the first line is the command's whole summary in `rdma4j --help`: one sentence
        "perftest's latency and bandwidth tests over rdma4j, each beside a raw JDK UDP baseline.",
        "Latency: p50/p99/p99.9/max (HdrHistogram); bandwidth: MB/s (2^20 B/s) and msgs/s. The baseline is a",
        "DatagramChannel running the same exchange in the same run; the ratio of the two closes each line.",
        "perftest's names (ib_send_lat...) speak perftest's exchange: either side may",
        "be perftest's own tool, given the same flags (-R: through rdma_cm, as perftest).",
        "Server: rdma4j perf ib_send_lat -c RC --address 127.0.0.11",
        "Client: rdma4j perf ib_send_lat -c RC --address 127.0.0.12 127.0.0.11",
        "The bare names (send_lat...) speak rdma4j's exchange, with the UDP baseline:",
        "both sides are rdma4j perf. A perftest peer met there is told by its first",
        "message, and the line to type instead is printed.",
        "The soft device's progress mode: --progress polling, or RDMA4J_SOFT_PROGRESS=polling."})
public final class PerfCommand implements Callable<Integer>
{
    /** perftest's default port. */
    static final int DEFAULT_PORT = 18515;
    /** perftest's default ACK timeout exponent (-u): 4.096 us x 2^14, about 67 ms. */
    static final int DEFAULT_QP_TIMEOUT = 14;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<test>",
        description = "ib_send_lat, ib_send_bw, ib_write_lat, ib_write_bw, ib_read_lat, ib_read_bw or ib_atomic_lat "
            + "(perftest's exchange: the peer may be perftest); the same without ib_ (send_lat...) for rdma4j's "
            + "exchange and the UDP baseline")
    private String testName;

    @Parameters(index = "1", arity = "0..1", paramLabel = "<server>",
        description = "the server to connect to; without it, be the server")
    private String serverName;

    @Option(names = {"-c", "--connection"}, paramLabel = "RC|UC|UD", defaultValue = "RC",
        description = "transport (default RC)")
    private String connection;

    @Option(names = {"-s", "--size"}, paramLabel = "<bytes>",
        description = "message size (default 64 for latency, 65536 for bandwidth, 4096 for UD bandwidth; "
            + "atomics are 8)")
    private Integer size;

    @Option(names = {"-a", "--all"}, description = "every size from 2 to 2^23 bytes (UD: to the MTU, 4096)")
    private boolean all;

    @Option(names = {"-n", "--iters"}, paramLabel = "<n>",
        description = "measured exchanges or messages per size (default 1000 for latency, 5000 for bandwidth)")
    private Integer iterations;

    @Option(names = "--warmup", paramLabel = "<n>",
        description = "unmeasured ones before them, so that the JIT has compiled the loop (default 20000 for "
            + "latency, 1000 for bandwidth); with perftest's exchange (latency tests), the first <n> of the -n "
            + "exchanges go unrecorded, so the peer runs the same -n (default 0)")
    private Integer warmup;

    @Option(names = {"-t", "--tx-depth"}, paramLabel = "<n>", defaultValue = "128",
        description = "sends in flight in the bandwidth tests (default 128)")
    private int txDepth;

    @Option(names = {"-r", "--rx-depth"}, paramLabel = "<n>", defaultValue = "512",
        description = "receives kept posted, the SEND stream's window (default 512)")
    private int rxDepth;

    @Option(names = {"-I", "--inline_size"}, paramLabel = "<bytes>", defaultValue = "0",
        description = "max inline data of the QPs; sizes up to it are sent inline (default 0)")
    private int inline;

    @Option(names = {"-l", "--post_list"}, paramLabel = "<n>", defaultValue = "1",
        description = "bandwidth client (with -M, the sender): post this many WRs as one chain, one postSend "
            + "(default 1), as perftest's --post_list; the soft device's Linux socket then sends the chain in one "
            + "system call")
    private int postList;

    @Option(names = "--baseline-datagram", paramLabel = "<bytes>", defaultValue = "65507",
        description = "the raw UDP baseline sends a message in datagrams of at most this many bytes (default "
            + "65507, the most UDP carries; 8192 for the 64 KiB targets of docs/performance.md); give both sides "
            + "the same value")
    private int baselineDatagram;

    @Option(names = {"-e", "--events"}, description = "sleep on a completion channel instead of busy polling; "
        + "the baseline then uses a blocking DatagramChannel")
    private boolean events;

    @Option(names = {"-q", "--qp"}, paramLabel = "<n>", defaultValue = "1",
        description = "QPs the bandwidth tests spread their messages over (default 1)")
    private int numQp;

    @Option(names = {"-p", "--port"}, paramLabel = "<port>", defaultValue = "18515",
        description = "TCP port of the control connection, with -R the rdma_cm port (default 18515)")
    private int port;

    @Option(names = "--address", paramLabel = "A", description = "this process's soft device address "
        + "(rdma4j.soft.address); a client of a local server without it takes the first free 127.0.0.x")
    private String address;

    @Option(names = "--progress", paramLabel = "thread|waiting|polling",
        description = "the soft device's progress mode (rdma4j.soft.progress; default: RDMA4J_SOFT_PROGRESS, "
            + "else thread)")
    private String progress;

    @Option(names = {"-M", "--mcast"}, paramLabel = "<receivers>|<mgid>",
        description = "UD send_lat/send_bw to a multicast group: the server sends, and waits for this many "
            + "clients, each a receiver that joins the group (fan-out latency is to the last receiver's reply); with "
            + "perftest's exchange, perftest's -M: the MGID of -g (as --MGID)")
    private String mcast;

    @Option(names = {"-g", "--mcg"}, description = "perftest's -g (perftest's exchange, UD send_lat/send_bw, one QP): "
        + "the receiving side (send_bw's server; both in send_lat) joins a group and its QP takes the SENDs there")
    private boolean mcg;

    @Option(names = "--MGID", paramLabel = "<mgid>", description = "the -g group as perftest writes it, 16 byte "
        + "values separated by ':' (default perftest's ff01:0:0:2:c985::, its client's ending in 1: an IPv6 group, "
        + "so over IPv4 give e.g. 0:0:0:0:0:0:0:0:0:0:255:255:239:1:1:1)")
    private String mgid;

    @Option(names = "--group", paramLabel = "A", defaultValue = "239.18.51.5",
        description = "the -M group (default 239.18.51.5); its baseline uses UDP port -p + 1")
    private String group;

    @Option(names = "--exchange", paramLabel = "perftest|rdma4j",
        description = "how the two sides meet: perftest's own TCP exchange, so that the peer may be perftest's ib_* "
            + "tool (no UDP baseline; perftest's result table), or rdma4j's (default, with the baseline); an ib_* "
            + "test name (ib_send_lat) means perftest")
    private String exchange;

    @Option(names = {"-R", "--rdma_cm"}, description = "perftest's -R: the exchange goes over an rdma_cm-connected QP "
        + "on -p's port and the test's QPs connect through rdma_cm (RC, or UD through SIDR; implies perftest's exchange)")
    private boolean rdmaCm;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "<dev>", description = "the device to open (default the first)")
    private String device;

    @Option(names = {"-x", "--gid-index"}, paramLabel = "<index>", defaultValue = "-1",
        description = "the GID index (default 0; with perftest's exchange the first IPv4-mapped one, as perftest "
            + "picks RoCEv2 over IPv4)")
    private int gidIndex;

    @Option(names = {"-u", "--qp-timeout"}, paramLabel = "<timeout>",
        description = "the RC QPs' ACK timeout, 4.096 us x 2^<timeout>, 0 for none (default 14, about 67 ms, as "
            + "perftest's): a requester that hears no ACK for so long sends its unacknowledged packets again")
    private Integer qpTimeout;

    @Option(names = {"-F", "--CPU-freq"}, description = "accepted for perftest's command lines and ignored: rdma4j "
        + "times with System.nanoTime, not the CPU's cycle counter, so a varying clock does not concern it")
    private boolean cpuFreq;

    @Option(names = "--histogram", paramLabel = "FILE",
        description = "client: write the latency histograms (rdma4j and baseline, per size) as an HdrHistogram log")
    private Path histogram;

    /**
     * @return the parsed run.
     * @throws CommandLine.ParameterException naming the flag at fault for a combination that cannot run.
     */
    public PerfConfig config()
    {
        final PerfTest test;
        final QpType type;
        try
        {
            test = PerfTest.parse(testName);
            // perftest's -g makes its test UD whatever -c says
            type = mcg ? QpType.UD : QpType.valueOf(connection.toUpperCase(Locale.ROOT));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), ex.getMessage().startsWith("unknown test")
                ? ex.getMessage() : "-c " + connection + ": expected RC, UC or UD");
        }
        final boolean perftest = perftestExchange();
        final int receivers = receivers(perftest);
        final String userMgid = perftest && mgid == null ? mcast : mgid;
        if (perftest)
        {
            refusePerftest(test);
            refuseMcg(test, type, userMgid);
        }
        else if (mcg || mgid != null)
        {
            throw bad((mcg ? "-g" : "--MGID") + ": perftest's multicast, with perftest's exchange (an ib_* test); " +
                "rdma4j's own is -M <receivers>");
        }
        if (rdmaCm && type == QpType.UC)
        {
            throw bad("-R -c UC: librdmacm has no UC, as perftest says");
        }
        if (!test.runsOn(type))
        {
            throw bad(test.label() + " does not run on " + type + ": " +
                (test.opcode() == io.rdma4j.verbs.WrOpcode.RDMA_WRITE ? "RDMA WRITE needs RC or UC" : "it needs RC"));
        }
        if (test.isLatency() && numQp != 1)
        {
            throw bad("-q " + numQp + ": the latency tests use one QP");
        }
        if (events && test == PerfTest.WRITE_LAT)
        {
            throw bad("-e: write_lat watches its buffer, not a CQ, so it has no events mode (as perftest)");
        }
        if (receivers < 0 || receivers > 255)
        {
            throw bad("-M " + receivers + ": 1..255 receivers");
        }
        if (receivers > 0 && (type != QpType.UD || test != PerfTest.SEND_LAT && test != PerfTest.SEND_BW))
        {
            throw bad("-M: multicast is send_lat or send_bw on UD");
        }
        if (receivers > 0 && numQp != 1)
        {
            throw bad("-M: a multicast run uses one QP");
        }
        if (receivers > 0 && iterations != null && iterations + warmups(test) >= 1 << 24)
        {
            throw bad("-M: -n plus --warmup must stay below 2^24 (the credits count in 24 bits)");
        }
        if (qpTimeout != null && (qpTimeout < 0 || qpTimeout > 31))
        {
            throw bad("-u " + qpTimeout + ": the ACK timeout is a 5-bit exponent, 0..31");
        }
        if (qpTimeout != null && rdmaCm)
        {
            throw bad("-u with -R: rdma_cm connects those QPs and sets their ACK timeout itself");
        }
        positive("-n", iterations == null ? 1 : iterations);
        positive("-t", txDepth);
        positive("-l", postList);
        if (baselineDatagram < 1 || baselineDatagram > UdpBaseline.MAX_DATAGRAM)
        {
            throw bad("--baseline-datagram " + baselineDatagram + ": must be 1.." + UdpBaseline.MAX_DATAGRAM);
        }
        positive("-r", rxDepth);
        positive("-q", numQp);
        if (warmups(test) < 0 || inline < 0)
        {
            throw bad("--warmup and -I must be 0 or more");
        }
        if (port < 0 || port > 65535)
        {
            throw bad("-p " + port + ": not a TCP port");
        }
        if (progress != null && !progress.equals("thread") && !progress.equals("polling") &&
            !progress.equals("waiting"))
        {
            throw bad("--progress " + progress + ": expected thread, waiting or polling");
        }
        final int largest = PerfRun.largestSize(type);
        final List<Integer> sizes = new ArrayList<>();
        if (test == PerfTest.ATOMIC_LAT)
        {
            if (size != null && size != Long.BYTES)
            {
                throw bad("-s " + size + ": atomics are 8 bytes");
            }
            sizes.add(Long.BYTES);
        }
        else if (all)
        {
            for (int s = 2; s <= largest; s <<= 1)
            {
                sizes.add(s);
            }
        }
        else
        {
            final int chosen = size != null ? size
                : test.isLatency() ? (perftest ? 2 : 64) : Math.min(65536, largest);
            if (chosen < 1 || chosen > largest)
            {
                throw bad("-s " + chosen + ": must be 1.." + largest +
                    (type == QpType.UD ? " on UD (one packet)" : ""));
            }
            sizes.add(chosen);
        }
        final int n = iterations != null ? iterations : defaultIterations(test, perftest);
        if (perftest && warmup != null && warmup >= n)
        {
            throw bad("--warmup " + warmup + " with perftest's exchange: fewer than -n " + n + ", the exchanges " +
                "both sides run (the first --warmup of them go unrecorded)");
        }
        final int unrecorded = perftest ? (warmup == null ? 0 : warmup) : warmups(test);
        return new PerfConfig(test, type, sizes, n, unrecorded, txDepth, rxDepth, inline, events,
            numQp, port, serverName, histogram, receivers, group, postList, baselineDatagram, perftest, device,
            gidIndex, rdmaCm, mcg, userMgid, qpTimeout == null ? DEFAULT_QP_TIMEOUT : qpTimeout);
    }

    /** rdma4j's -M: the count of receivers; with perftest's exchange -M is perftest's MGID, and there are none. */
    private int receivers(final boolean perftest)
    {
        if (mcast == null || perftest)
        {
            return 0;
        }
        try
        {
            return Integer.parseInt(mcast);
        }
        catch (final NumberFormatException ex)
        {
            throw bad("-M " + mcast + ": rdma4j's -M is a count of receivers (perftest's MGID only with perftest's " +
                "exchange)");
        }
    }

    /** perftest's own limits on -g (perftest_parameters.c), and an MGID that is 16 bytes of a multicast GID. */
    private void refuseMcg(final PerfTest test, final QpType type, final String userMgid)
    {
        if (!mcg)
        {
            if (userMgid != null)
            {
                throw bad((mgid != null ? "--MGID" : "-M") + ": the group of -g, which is not given");
            }
            return;
        }
        if (mcast != null && mgid != null)
        {
            throw bad("-M and --MGID: the same group twice");
        }
        if (type != QpType.UD || test != PerfTest.SEND_LAT && test != PerfTest.SEND_BW)
        {
            throw bad("-g: perftest's multicast is send_lat or send_bw on UD");
        }
        if (rdmaCm)
        {
            throw bad("-g -R: perftest has no multicast with rdma_cm (\"Perftest still doesn't support Multicast " +
                "with rdma_cm\")");
        }
        if (numQp != 1)
        {
            throw bad("-g: perftest's multicast runs one QP");
        }
        try
        {
            PerftestGroup.mgid(userMgid, false);
        }
        catch (final IllegalArgumentException ex)
        {
            throw bad(ex.getMessage());
        }
    }

    /**
     * perftest's counts, which a perftest peer runs unless told otherwise: 5000 for write_bw, 1000 for the rest;
     * rdma4j's own: 1000 for latency, 5000 for bandwidth.
     */
    private static int defaultIterations(final PerfTest test, final boolean perftest)
    {
        if (perftest)
        {
            return test == PerfTest.WRITE_BW ? 5000 : 1000;
        }
        return test.isLatency() ? 1000 : 5000;
    }

    private boolean perftestExchange()
    {
        if (rdmaCm && "rdma4j".equals(exchange))
        {
            throw bad("-R: rdma_cm is perftest's exchange, not rdma4j's");
        }
        if (exchange == null)
        {
            return rdmaCm || testName.startsWith("ib_");
        }
        return switch (exchange)
        {
            case "perftest" -> true;
            case "rdma4j" -> false;
            default -> throw bad("--exchange " + exchange + ": expected perftest or rdma4j");
        };
    }

    /**
     * What perftest's exchange cannot carry: a perftest peer knows nothing of warm-up, a baseline, a histogram
     * log or a multicast fan-out, and each size of -a would need the tool's own per-size steps.
     */
    private void refusePerftest(final PerfTest test)
    {
        if (warmup != null && warmup != 0 && !test.isLatency())
        {
            throw bad("--warmup with perftest's exchange: the latency tests only (a bandwidth figure is the whole " +
                "stream's, as perftest's is)");
        }
        if (histogram != null || all)
        {
            throw bad((histogram != null ? "--histogram" : "-a") +
                ": not with perftest's exchange (give --exchange rdma4j, or run perftest's sizes one -s at a time)");
        }
        if (baselineDatagram != UdpBaseline.MAX_DATAGRAM)
        {
            throw bad("--baseline-datagram: perftest's exchange has no UDP baseline");
        }
    }

    private void positive(final String flag, final int value)
    {
        if (value < 1)
        {
            throw bad(flag + " " + value + ": must be 1 or more");
        }
    }

    private CommandLine.ParameterException bad(final String message)
    {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /**
     * @return --address, or null.
     */
    public String address()
    {
        return address;
    }

    /**
     * @return 0 when every size ran, 1 otherwise.
     */
    @Override
    public Integer call()
    {
        final PerfConfig cfg = config();
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        try
        {
            // the flags reach the soft device in code, through the default provider's context, not a property
            final SoftProviderContext soft = progress == null ? null :
                new SoftProviderContext().progress(ProgressMode.valueOf(progress.toUpperCase(Locale.ROOT)));
            SoftAddress.configure(soft, address, serverName);
            final InetAddress bind = address == null ? null : InetAddress.getByName(address);
            if (cfg.perftest())
            {
                new PerftestRun(cfg, bind, out).run();
            }
            else if (cfg.isFanOut())
            {
                new FanOutRun(cfg, bind, out, progressMode()).run();
            }
            else
            {
                new PerfRun(cfg, bind, out, progressMode(), perftestCommand()).run();
            }
            return 0;
        }
        catch (final PerfException | IOException | RdmaException ex)
        {
            err.println("perf: " + (ex.getMessage() != null ? ex.getMessage()
                : ex instanceof java.io.EOFException ? "the peer closed the control connection" : ex.toString()));
            return 1;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            err.println("perf: interrupted");
            return 1;
        }
        finally
        {
            out.flush();
            err.flush();
        }
    }

    /**
     * @return the command line the user typed, made to speak perftest's exchange: the test's ib_* name, without
     *     --exchange and what only rdma4j's exchange has (-a, --histogram, --baseline-datagram).
     */
    String perftestCommand()
    {
        final List<String> all = spec.commandLine().getParseResult().originalArgs();
        // the whole command line: this command's arguments follow its name
        final List<String> args = all.subList(all.indexOf(spec.name()) + 1, all.size());
        final StringBuilder line = new StringBuilder("rdma4j perf");
        boolean named = false;
        for (int i = 0; i < args.size(); i++)
        {
            final String arg = args.get(i);
            if (arg.equals("--exchange") || arg.equals("--histogram") || arg.equals("--baseline-datagram"))
            {
                i++;
                continue;
            }
            if (arg.startsWith("--exchange=") || arg.startsWith("--histogram=") ||
                arg.startsWith("--baseline-datagram=") || arg.equals("-a") || arg.equals("--all"))
            {
                continue;
            }
            final boolean test = !named && arg.equals(testName);
            named |= test;
            line.append(' ').append(test && !arg.startsWith("ib_") ? "ib_" + arg : arg);
        }
        return line.toString();
    }

    /**
     * A latency run's default warm-up is long enough for C2 to compile the exchange (1000 left it in C1 and
     * the interpreter: 3-5 times the warm figure); a bandwidth run's messages are many per iteration already.
     */
    private int warmups(final PerfTest test)
    {
        return warmup != null ? warmup : test.isLatency() ? 20_000 : 1000;
    }

    private String progressMode()
    {
        final String mode = progress != null ? progress : SoftSettings.PROGRESS.read();
        return mode == null ? "polling" : mode;
    }
}
