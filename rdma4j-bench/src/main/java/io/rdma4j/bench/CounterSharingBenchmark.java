package io.rdma4j.bench;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a device's counters cost a stream whose packets two threads count: the one that sends bumps sent_pkts,
 * the one that receives rcvd_pkts, as an application thread and the progress thread do. Laid out side by side
 * ({@code compact}, a QP's layout) the two share a cache line, which crosses cores on each bump; {@code padded}
 * (a device's) gives each its own. The gap is the machine's price of a line crossing cores, which differs by
 * processor (and on one VM by the minute): compare the layouts in the same run.
 */
@State(Scope.Group)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CounterSharingBenchmark
{
    @Param({"padded", "compact"})
    String layout;

    private Counters counters;

    @Setup
    public void setUp()
    {
        counters = "padded".equals(layout) ? new Counters() : Counters.compact();
    }

    @Benchmark
    @Group("sendAndReceive")
    @GroupThreads(1)
    public void send()
    {
        counters.increment(SoftCounter.SENT_PKTS);
    }

    @Benchmark
    @Group("sendAndReceive")
    @GroupThreads(1)
    public void receive()
    {
        counters.increment(SoftCounter.RCVD_PKTS);
    }
}
