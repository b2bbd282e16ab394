package io.rdma4j.tools;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * {@code rdma4j demo}: UD multicast between separate processes in one command. Three receivers
 * and a send-only member join the group, each in its own JVM on its own loopback address; once
 * all four said they joined, a sender sends; the demo reports what each got and succeeds only if
 * every receiver got every message and the send-only member got none.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Run 3 receivers, 1 send-only member and 1 sender as separate processes over multicast.")
public final class DemoCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "-m", paramLabel = "group", defaultValue = "239.255.0.1", description = "multicast group (default: ${DEFAULT-VALUE})")
    private String group;

    @Option(names = "-C", paramLabel = "count", defaultValue = "1000", description = "messages (default: ${DEFAULT-VALUE})")
    private int count;

    @Option(names = "-S", paramLabel = "size", defaultValue = "100", description = "message size (default: ${DEFAULT-VALUE})")
    private int size;

    @Option(names = "--sender", paramLabel = "address", defaultValue = "127.0.0.10",
        description = "sender's address (default: ${DEFAULT-VALUE})")
    private String senderAddress;

    @Option(names = "--receivers", paramLabel = "address", split = ",",
        defaultValue = "127.0.0.11,127.0.0.12,127.0.0.13", description = "receivers' addresses (default: ${DEFAULT-VALUE})")
    private List<String> receiverAddresses;

    @Option(names = "--member", paramLabel = "address", defaultValue = "127.0.0.14",
        description = "send-only member's address (default: ${DEFAULT-VALUE})")
    private String memberAddress;

    @Option(names = "--interval-us", paramLabel = "us", defaultValue = "100",
        description = "sender's pause between messages, so UDP buffers keep up (default: ${DEFAULT-VALUE})")
    private long intervalMicros;

    @Option(names = "--timeout", paramLabel = "seconds", defaultValue = "60",
        description = "limit for joining and for the transfer (default: ${DEFAULT-VALUE})")
    private int timeoutSeconds;

    @Option(names = "--histogram", paramLabel = "PREFIX",
        description = "each receiver writes its one-way latencies (us) as an HdrHistogram log, PREFIX-receiver-N.hlog")
    private String histogramPrefix;

    /**
     * @return -C.
     */
    public int count()
    {
        return count;
    }

    /**
     * @return -S.
     */
    public int size()
    {
        return size;
    }

    /**
     * @return -m.
     */
    public String group()
    {
        return group;
    }

    /**
     * @return --receivers.
     */
    public List<String> receiverAddresses()
    {
        return receiverAddresses;
    }

    /**
     * @return 0 if every receiver got every message, the member none, and every child exited 0.
     */
    @Override
    public Integer call() throws InterruptedException
    {
        final PrintWriter out = spec.commandLine().getOut();
        final Consumer<String> sink = line ->
        {
            synchronized (out)
            {
                out.println(line);
                out.flush();
            }
        };
        final List<RoleProcess> receivers = new ArrayList<>();
        final List<RoleProcess> all = new ArrayList<>();
        RoleProcess member = null;
        RoleProcess sender = null;
        try
        {
            for (int i = 0; i < receiverAddresses.size(); i++)
            {
                final String address = receiverAddresses.get(i);
                final List<String> args = listenerArgs(address, false);
                if (histogramPrefix != null)
                {
                    args.addAll(List.of("--histogram", histogramPrefix + "-receiver-" + (i + 1) + ".hlog"));
                }
                final RoleProcess receiver = RoleProcess.start("receiver-" + (i + 1), address, args, sink);
                receivers.add(receiver);
                all.add(receiver);
            }
            member = RoleProcess.start("send-only", memberAddress, listenerArgs(memberAddress, true), sink);
            all.add(member);
            if (!awaitJoins(all, sink))
            {
                return 1;
            }
            sink.accept("demo: all " + all.size() + " members joined " + group + "; starting the sender");
            sender = RoleProcess.start("sender", senderAddress, List.of(
                "mckey", "-s", "-m", group, "-b", senderAddress, "-C", Integer.toString(count),
                "-S", Integer.toString(size), "--delay-ms", "0", "--interval-us", Long.toString(intervalMicros),
                "--timeout", Integer.toString(timeoutSeconds)), sink);
            all.add(sender);
            final int senderExit = sender.await(timeoutSeconds + 30L, TimeUnit.SECONDS);
            if (senderExit != 0)
            {
                // Nothing more is coming: let the receivers report now rather than at their timeout.
                receivers.forEach(RoleProcess::closeStdin);
            }
            final List<Integer> receiverExits = new ArrayList<>();
            for (final RoleProcess receiver : receivers)
            {
                receiverExits.add(receiver.await(timeoutSeconds + 30L, TimeUnit.SECONDS));
            }
            // Every receiver has all it will get: whatever the member has not got by now it never will.
            member.closeStdin();
            final int memberExit = member.await(30, TimeUnit.SECONDS);
            return report(out, sender, senderExit, receivers, receiverExits, member, memberExit);
        }
        catch (final IOException ex)
        {
            sink.accept("demo: cannot start a child JVM: " + ex.getMessage());
            return 1;
        }
        finally
        {
            for (final RoleProcess child : all)
            {
                child.destroy();
            }
        }
    }

    private List<String> listenerArgs(final String address, final boolean sendOnly)
    {
        final List<String> args = new ArrayList<>(List.of(
            "mckey", "-m", group, "-b", address, "-C", Integer.toString(count), "-S", Integer.toString(size),
            "--delay-ms", "0", "--timeout", Integer.toString(timeoutSeconds), "--stop-on-stdin"));
        if (sendOnly)
        {
            args.addAll(List.of("-o", "--expect", "0"));
        }
        return args;
    }

    private boolean awaitJoins(final List<RoleProcess> members, final Consumer<String> sink)
        throws InterruptedException
    {
        final CompletableFuture<?>[] joins = members.stream().map(RoleProcess::joined).toArray(CompletableFuture[]::new);
        try
        {
            CompletableFuture.allOf(joins).get(timeoutSeconds, TimeUnit.SECONDS);
        }
        catch (final TimeoutException ex)
        {
            sink.accept("demo: not every member joined within " + timeoutSeconds + " s");
            return false;
        }
        catch (final ExecutionException ex)
        {
            sink.accept("demo: " + ex.getCause());
            return false;
        }
        boolean ok = true;
        for (final RoleProcess m : members)
        {
            if (!m.joined().join())
            {
                sink.accept("demo: " + m.role() + " ended without joining");
                ok = false;
            }
        }
        return ok;
    }

    private int report(
        final PrintWriter out, final RoleProcess sender, final int senderExit, final List<RoleProcess> receivers,
        final List<Integer> receiverExits, final RoleProcess member, final int memberExit)
    {
        boolean ok = senderExit == 0;
        synchronized (out)
        {
            out.println();
            out.printf("%-10s %-12s %9s %7s %8s %7s %7s %7s %7s %5s%n",
                "role", "address", "received", "unique", "missing", "p50_us", "p90_us", "p99_us", "max_us", "exit");
            out.printf("%-10s %-12s %9s %7s %8s %7s %7s %7s %7s %5d%n",
                sender.role(), sender.address(), "-", "-", "-", "-", "-", "-", "-", senderExit);
            for (int i = 0; i < receivers.size(); i++)
            {
                final RoleProcess r = receivers.get(i);
                row(out, r, receiverExits.get(i));
                ok &= receiverExits.get(i) == 0 && r.summaryValue("unique") == count && r.summaryValue("missing") == 0;
            }
            row(out, member, memberExit);
            ok &= memberExit == 0 && member.summaryValue("received") == 0;
            out.println();
            out.println(ok
                ? "demo: PASS: every receiver got all " + count + " messages; the send-only member got none"
                : "demo: FAIL: see the table and the output above");
            out.flush();
        }
        return ok ? 0 : 1;
    }

    private static void row(final PrintWriter out, final RoleProcess p, final int exit)
    {
        out.printf("%-10s %-12s %9d %7d %8d %7d %7d %7d %7d %5d%n", p.role(), p.address(),
            p.summaryValue("received"), p.summaryValue("unique"), p.summaryValue("missing"), p.summaryValue("p50_us"),
            p.summaryValue("p90_us"), p.summaryValue("p99_us"), p.summaryValue("max_us"), exit);
    }
}
