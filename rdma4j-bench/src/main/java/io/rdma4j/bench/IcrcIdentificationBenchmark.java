package io.rdma4j.bench;

import io.rdma4j.soft.wire.Icrc;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.PacketInfo;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the IPv4 identification costs the ICRC, whose input it is while a UDP socket hides it: a sender moves each
 * segment of a {@code UDP_SEGMENT} run from identification 0 to its number ({@link #renumberARun}: a 64 KiB write is
 * a run of 16), and a receiver that cannot see the identification either guesses it (a segment's place in its GRO
 * run, {@link #checkGuessed}) or solves for it ({@link #checkSolved}). The arithmetic is GF(2) products whose cost
 * was a processor's branch predictor's: compare machines with this, against {@link #checkKnown}, the check alone.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class IcrcIdentificationBenchmark
{
    private static final int SOURCE = 0x7F09_5001;
    private static final int DESTINATION = 0x7F09_5002;
    private static final int PORT = 4791;

    /** The UDP payload: a full 4096-byte segment with its headers, or a 64-byte SEND's. */
    @Param({"4124", "92"})
    int length;

    private final Icrc icrc = new Icrc();
    private final PacketInfo known = new PacketInfo();
    private final PacketInfo guessed = new PacketInfo();
    private final PacketInfo unknown = new PacketInfo();
    private final int[] changes = new int[15];
    private MemorySegment packet;

    @Setup
    public void setUp()
    {
        packet = MemorySegment.ofArray(new byte[length]);
        packet.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte)Opcode.RC_RDMA_WRITE_MIDDLE.wire());
        // the seventh segment of its run, as a flush numbers it
        final int segment = 7;
        icrc.generate(packet, 0, length, new PacketInfo().clear().network(SOURCE, PORT, DESTINATION, PORT, segment));
        known.clear().network(SOURCE, PORT, DESTINATION, PORT, segment);
        guessed.clear().network(SOURCE, PORT, DESTINATION, PORT, Icrc.UNKNOWN_IP_ID).ipIdentificationGuess(segment);
        unknown.clear().network(SOURCE, PORT, DESTINATION, PORT, Icrc.UNKNOWN_IP_ID);
    }

    @Benchmark
    public int renumberARun()
    {
        Icrc.identificationChanges(length, 1, changes.length, changes);
        return changes[changes.length - 1];
    }

    @Benchmark
    public int checkKnown()
    {
        return icrc.check(packet, 0, length, known);
    }

    @Benchmark
    public int checkGuessed()
    {
        return icrc.check(packet, 0, length, guessed);
    }

    @Benchmark
    public int checkSolved()
    {
        return icrc.check(packet, 0, length, unknown);
    }
}
