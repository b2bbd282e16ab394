package io.rdma4j.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;

/**
 * What {@code -prof gc} reports for an operation that allocates nothing: {@link Blackhole#consumeCPU} for about
 * as long as one {@link NativePostPollBenchmark} operation takes in the emulated lab guest (some 225 us). The
 * profiler divides the heap allocated by every thread of the fork during an iteration (JMH's own bookkeeping
 * included) by the operations of that iteration, so a benchmark whose operations are slow shows a few bytes per
 * operation that no operation allocates; with longer iterations (more operations) the figure falls in
 * proportion, which a real per-operation allocation would not. Compare {@code -r 2s} with {@code -r 10s}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class GcNoiseFloorBenchmark
{
    /** Blackhole tokens per operation: on this project's machines about 225 us. */
    @Param({"60000"})
    long tokens;

    @Benchmark
    public void burnWithoutAllocating()
    {
        Blackhole.consumeCPU(tokens);
    }
}
