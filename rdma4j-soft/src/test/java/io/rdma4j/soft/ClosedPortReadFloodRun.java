package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.testing.TestNet;

import java.net.InetAddress;

/**
 * The figures of {@link ClosedPortReadFlood}, not a test: a UD ping's wait behind a READ into a closed port
 * (and its duplicates), against the same ping with no READ, a fresh pair of devices for each run.
 * <p>
 * Run from the repository root after {@code mvn -o -pl rdma4j-soft -am test-compile}:
 * {@code java --enable-native-access=ALL-UNNAMED -cp rdma4j-soft/target/test-classes:rdma4j-soft/target/classes:
 * rdma4j-api/target/classes:rdma4j-test-support/target/classes:AGRONA_JAR io.rdma4j.soft.ClosedPortReadFloodRun
 * [runs] [MiB] [duplicates]}.
 */
public final class ClosedPortReadFloodRun
{
    private ClosedPortReadFloodRun()
    {
    }

    /**
     * @param args runs (5), the READ's MiB (64), duplicates of the first READ sent right after the requests (200),
     *             READs (1, at most 16: max_dest_rd_atomic), pings behind them, one after the other (1).
     * @throws Exception if a device cannot open.
     */
    public static void main(final String[] args) throws Exception
    {
        final int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        final int mib = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        final int duplicates = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        final int reads = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        final int pings = args.length > 4 ? Integer.parseInt(args[4]) : 1;
        System.out.printf("%-8s %10s %10s %12s %12s %10s %8s %8s %10s %10s%n", "run", "wait ms", "rtt ms",
            "resp before", "resp at rcv", "rcv calls", "dups", "icmp", "rcv errors", "rcvbuf dr");
        for (int run = 0; run < runs; run++)
        {
            final int subnet = TestNet.nextSubnet();
            final InetAddress[] addresses = {TestNet.address(subnet, 1), TestNet.address(subnet, 2),
                TestNet.address(subnet, 3)};
            try (ClosedPortReadFlood flood = new ClosedPortReadFlood(addresses, mib << 20))
            {
                final ClosedPortReadFlood.Ping idle = flood.ping(60_000);
                print("idle", flood, idle);
                for (int i = 0; i < reads; i++)
                {
                    flood.sendRead(i);
                }
                for (int i = 0; i < duplicates; i++)
                {
                    flood.sendRead(0);
                }
                TestVerbs.awaitAtLeast(flood::readResponsesSent, 1);
                for (int i = 0; i < pings; i++)
                {
                    print("read " + run, flood, flood.ping(60_000));
                }
                if (pings == 0)
                {
                    // no ping: the rate at which the responses leave, over two seconds
                    final long before = flood.readResponsesSent();
                    Thread.sleep(2_000);
                    System.out.printf("read %d: %d responses/s%n", run, (flood.readResponsesSent() - before) / 2);
                }
            }
        }
        System.exit(0);
    }

    private static void print(final String name, final ClosedPortReadFlood flood, final ClosedPortReadFlood.Ping ping)
    {
        if (ping == null)
        {
            System.out.printf("%-8s no answer in 60 s%n", name);
            return;
        }
        System.out.printf("%-8s %10.3f %10.3f %12d %12d %10d %8d %8d %10d %10d%n", name, ping.waitNs() / 1e6,
            ping.roundTripNs() / 1e6, ping.readResponsesBefore(), ping.readResponsesAtReceipt(),
            ping.receiveSyscallsDuring(), flood.duplicatesTaken(),
            flood.victimCounter(SoftCounter.ICMP_PORT_UNREACHABLE),
            flood.victimCounter(SoftCounter.UDP_RECV_SOCKET_ERRORS),
            flood.victimCounter(SoftCounter.UDP_RCVBUF_DROPS));
    }
}
