package io.rdma4j.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;

/**
 * The baseline for {@link UdRoundTripBenchmark}: one datagram of the same size from one
 * non-blocking DatagramChannel to another on loopback, sent and received on one thread.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class UdpBaselineBenchmark
{
    @Param({"64", "1024"})
    int size;

    private DatagramChannel tx;
    private DatagramChannel rx;
    private InetSocketAddress target;
    private ByteBuffer out;
    private final ByteBuffer in = ByteBuffer.allocateDirect(4096);

    @Setup
    public void setUp() throws IOException
    {
        rx = DatagramChannel.open().bind(new InetSocketAddress("127.0.9.4", 0));
        rx.configureBlocking(false);
        tx = DatagramChannel.open().bind(new InetSocketAddress("127.0.9.3", 0));
        target = (InetSocketAddress)rx.getLocalAddress();
        // the RoCEv2 datagram carries 40 bytes of headers and ICRC more than the payload
        out = ByteBuffer.allocateDirect(size + 40);
    }

    @Benchmark
    public int sendAndReceive() throws IOException
    {
        out.clear();
        tx.send(out, target);
        in.clear();
        while (rx.receive(in) == null)
        {
            Thread.onSpinWait();
        }
        return in.position();
    }

    /**
     * The baseline of {@link UdStreamBenchmark}: a burst of as many datagrams of the same size,
     * one system call each (what a DatagramChannel offers), then all of them received.
     */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @OperationsPerInvocation(UdStreamBenchmark.BURST)
    public int burst() throws IOException
    {
        for (int i = 0; i < UdStreamBenchmark.BURST; i++)
        {
            out.clear();
            tx.send(out, target);
        }
        int bytes = 0;
        for (int i = 0; i < UdStreamBenchmark.BURST; i++)
        {
            in.clear();
            while (rx.receive(in) == null)
            {
                Thread.onSpinWait();
            }
            bytes += in.position();
        }
        return bytes;
    }

    @TearDown
    public void tearDown() throws IOException
    {
        tx.close();
        rx.close();
    }
}
