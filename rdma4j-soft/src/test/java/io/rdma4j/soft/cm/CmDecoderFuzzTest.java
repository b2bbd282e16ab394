package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.wire.BthFlyweight;
import io.rdma4j.soft.wire.Captures;
import io.rdma4j.soft.wire.PcapReader;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.Gid;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.RandomGenerator;
import net.jqwik.api.Tuple;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static io.rdma4j.soft.cm.CmPeers.CLIENT;
import static io.rdma4j.soft.cm.CmPeers.SERVER;
import static io.rdma4j.soft.cm.CmPeers.connection;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzing the connection manager's receive entry with MADs an attacker on UDP 4791 could send:
 * random bytes, random bodies behind a valid CM header, and the CM MADs of the rxe captures mutated,
 * some of them aimed at a live connection (its comm ids, QPN and transaction id written in) so that
 * the mutations reach the state machine. Every input must end in exactly one counter, no task of
 * the CM may throw, and afterwards the CM still makes a connection.
 * <p>
 * A jqwik example (its generators need jqwik's thread) drawing from jqwik arbitraries with a seeded
 * random, so that the number of inputs can be chosen: {@value #DEFAULT_TRIES} in the default suite;
 * the Maven profile {@code fuzz} ({@code mvn -Pfuzz -pl rdma4j-soft test}) runs 10^6, alone;
 * {@code -Drdma4j.fuzz.tries=N} any number, {@code -Drdma4j.fuzz.seed=S} repeats a run.
 */
class CmDecoderFuzzTest
{
    static final int DEFAULT_TRIES = 10_000;
    /** Inputs fed before waiting for the CM: few enough that they and their answers never fill its queue. */
    private static final int BATCH = 32;
    private static final int MAD_IN_PAYLOAD = 12 + 8;
    private static final int MAD_LENGTH = 256;
    private static final List<byte[]> CAPTURED = capturedMads();

    /**
     * One input: the bytes, which side's device receives it, from which address (0 or 1 the peer's,
     * 2 its own, 3 a stranger's), and how far to aim it at the live connection (0 to 5; above, not).
     */
    private record Input(byte[] mad, boolean toClient, int from, int aim)
    {
    }

    /** What was fed, to name it if the CM fails on it. */
    private record Fed(byte[] mad, boolean toClient, Gid source)
    {
    }

    @Example
    void shouldCountEveryFuzzedMadNeverFailAndStillConnect() throws Exception
    {
        final int tries = Integer.getInteger("rdma4j.fuzz.tries", DEFAULT_TRIES);
        final long seed = Long.getLong("rdma4j.fuzz.seed", System.nanoTime());
        final ConnectionManager cm = ConnectionManager.create(CmTesting.SHARED, CmClock.system(),
            ConnectionManager.DEFAULT_QUEUE_CAPACITY);
        try (AutoCloseable stop = cm::stop; CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY);
            CmPeers peers = new CmPeers(fabric, cm))
        {
            // an idle id keeps the client's device open while connections come and go, so its counters stay
            peers.resolvedClient();
            final CmId[] first = peers.connect();
            cm.awaitIdle();
            final SoftEngine clientEngine = CmPeers.engine(first[0]);
            final SoftEngine serverEngine = CmPeers.engine(first[1]);
            final long countedBefore = counted(cm);
            final long rcvdBefore = rcvd(clientEngine) + rcvd(serverEngine);
            final RandomGenerator<Input> inputs = inputs(peers).generator(1000);
            final Random random = new Random(seed);
            final List<Fed> batch = new ArrayList<>(BATCH);
            CmId[] live = first;
            int connections = 1;

            for (int i = 0; i < tries; i++)
            {
                final Input input = inputs.next(random).value();
                final CmId target = input.toClient() ? live[0] : live[1];
                final byte[] mad = input.aim() <= 5 ? aimAt(input.mad(), connection(target), input.aim()) : input.mad();
                final Gid peerIp = peers.ip(input.toClient() ? SERVER : CLIENT);
                final Gid ownIp = peers.ip(input.toClient() ? CLIENT : SERVER);
                final Gid source = input.from() <= 1 ? peerIp : input.from() == 2 ? ownIp : peers.ip(123);
                batch.add(new Fed(mad, input.toClient(), source));
                cm.receive(CmPeers.engine(target), mad.clone(), source, 4791);
                if (batch.size() == BATCH || i == tries - 1)
                {
                    cm.awaitIdle();
                    if (cm.counter(CmCounter.TASK_FAILED) != 0)
                    {
                        throw new AssertionError("seed " + seed + ", tries up to " + i + ": the CM threw on one of " +
                            describe(batch));
                    }
                    batch.clear();
                    drain(peers);
                    if (connection(live[0]).phase != CmConnection.Phase.ESTABLISHED ||
                        connection(live[1]).phase != CmConnection.Phase.ESTABLISHED)
                    {
                        // the fuzz ended the connection (a well-aimed DREQ or REJ is a real one): make another
                        peers.close(live[0]);
                        peers.close(live[1]);
                        cm.awaitIdle();
                        drain(peers);
                        live = peers.connect();
                        connections++;
                    }
                }
            }

            // every MAD the CM took, ours and what the devices received in answer, ended in one counter
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (counted(cm) - countedBefore != tries + rcvd(clientEngine) + rcvd(serverEngine) - rcvdBefore)
            {
                assertTrue(System.nanoTime() < deadline, "seed " + seed + ": " + (counted(cm) - countedBefore) +
                    " counted for " + tries + " fuzzed and " + (rcvd(clientEngine) + rcvd(serverEngine) - rcvdBefore) +
                    " received MADs");
                cm.awaitIdle();
            }
            assertEquals(0, cm.counter(CmCounter.TASK_FAILED));
            drain(peers);
            final CmId[] after = peers.connect();
            assertEquals(CmConnection.Phase.ESTABLISHED, connection(after[0]).phase, "seed " + seed);
            System.out.printf("CM fuzz: %d MADs, seed %d, %d connections fuzzed: %s%n", tries, seed, connections,
                counters(cm));
        }
    }

    private static Arbitrary<Input> inputs(final CmPeers peers)
    {
        final Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofSize(MAD_LENGTH);
        final Arbitrary<byte[]> headed = Combinators.combine(Arbitraries.of(CAPTURED), random).as((valid, body) ->
        {
            final byte[] mad = body.clone();
            System.arraycopy(valid, 0, mad, 0, 24);
            return mad;
        });
        final Arbitrary<byte[]> mutated = Combinators.combine(Arbitraries.of(CAPTURED),
            Arbitraries.integers().between(0, MAD_LENGTH - 1).list().ofMinSize(1).ofMaxSize(8),
            Arbitraries.bytes().list().ofSize(8)).as((valid, positions, values) ->
            {
                final byte[] mad = valid.clone();
                for (int i = 0; i < positions.size(); i++)
                {
                    mad[positions.get(i)] = values.get(i);
                }
                return mad;
            });
        final Gid clientIp = peers.ip(CLIENT);
        final Gid serverIp = peers.ip(SERVER);
        final long serviceId = CmWire.serviceId(PortSpace.TCP, peers.listener.localAddress().getPort());
        // requests the listener takes, mutated: what reaches the backlog and the duplicate handling
        final Arbitrary<byte[]> requests = Combinators.combine(Arbitraries.integers().between(1, 64),
            Arbitraries.integers().between(0, MAD_LENGTH - 1).list().ofMaxSize(3),
            Arbitraries.bytes().list().ofSize(3)).as((commId, positions, values) ->
            {
                final byte[] mad = CmWire.encode(CmMessage.Req.builder().tid(commId).localCommId(commId)
                    .serviceId(serviceId).qpn(0x11 + commId).pathMtu(1024).startingPsn(commId).srcIp(clientIp)
                    .dstIp(serverIp).srcPort(40000).hopLimit(64).retryCount(7).rnrRetryCount(7).build());
                for (int i = 0; i < positions.size(); i++)
                {
                    mad[positions.get(i)] = values.get(i);
                }
                return mad;
            });
        final Arbitrary<byte[]> mads = Arbitraries.frequencyOf(
            Tuple.of(1, random),
            Tuple.of(2, headed),
            Tuple.of(1, Arbitraries.of(CAPTURED)),
            Tuple.of(2, requests),
            Tuple.of(5, mutated));
        return Combinators.combine(mads, Arbitraries.of(true, false), Arbitraries.integers().between(0, 3),
            Arbitraries.integers().between(0, 9)).as(Input::new);
    }

    /** Write the live connection's ids into a MAD, some fields or all, so that it gets past the matching. */
    private static byte[] aimAt(final byte[] mad, final CmConnection target, final int how)
    {
        final byte[] aimed = mad.clone();
        final MemorySegment m = MemorySegment.ofArray(aimed);
        final ValueLayout.OfInt beInt = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        final ValueLayout.OfLong beLong = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        m.set(beInt, 28, target.localCommId);
        if (how > 0)
        {
            m.set(beInt, 24, target.remoteCommId);
        }
        if (how > 1)
        {
            m.set(beLong, 8, target.tid);
        }
        if (how > 2)
        {
            // a DREQ's remote QPN: 24 bits at 32
            m.set(beInt, 32, (target.localQpn << 8) | (aimed[35] & 0xFF));
        }
        return aimed;
    }

    /** The server answers the requests the fuzz made it report, so that the backlog stays free. */
    private static void drain(final CmPeers peers) throws InterruptedException
    {
        for (final EventChannel channel : List.of(peers.serverChannel, peers.clientChannel))
        {
            CmEvent event;
            while ((event = channel.getEvent(0, TimeUnit.SECONDS)) != null)
            {
                CmId requested = null;
                try (CmEvent taken = event)
                {
                    if (taken.type() == CmEventType.CONNECT_REQUEST)
                    {
                        requested = taken.id();
                        requested.reject(null);
                    }
                }
                catch (final RdmaException ex)
                {
                    // a request the fuzz already answered or withdrew: nothing left to refuse
                }
                if (requested != null)
                {
                    // destroyed once its event is acknowledged, or it would wait for the ack
                    requested.close();
                }
            }
        }
    }

    private static String describe(final List<Fed> inputs)
    {
        final StringBuilder text = new StringBuilder();
        for (final Fed input : inputs)
        {
            text.append("\n  ").append(input.toClient() ? "to client from " : "to server from ")
                .append(input.source()).append(": ").append(HexFormat.of().formatHex(input.mad()));
        }
        return text.toString();
    }

    private static long rcvd(final SoftEngine engine)
    {
        return engine.counters().get(SoftCounter.GSI_RCVD_MADS);
    }

    private static long counted(final ConnectionManager cm)
    {
        long sum = 0;
        for (final CmCounter counter : CmCounter.values())
        {
            sum += cm.counter(counter);
        }
        return sum;
    }

    private static String counters(final ConnectionManager cm)
    {
        final StringBuilder text = new StringBuilder();
        for (final CmCounter counter : CmCounter.values())
        {
            text.append(text.isEmpty() ? "" : ", ").append(counter).append(' ').append(cm.counter(counter));
        }
        return text.toString();
    }

    private static List<byte[]> capturedMads()
    {
        final List<byte[]> mads = new ArrayList<>();
        for (final Path pcap : Captures.pcaps())
        {
            for (final PcapReader.Datagram d : Captures.datagrams(pcap))
            {
                final byte[] payload = d.payload();
                if (payload.length >= MAD_IN_PAYLOAD + MAD_LENGTH &&
                    BthFlyweight.destQp(MemorySegment.ofArray(payload), 0) == 1)
                {
                    mads.add(Arrays.copyOfRange(payload, MAD_IN_PAYLOAD, MAD_IN_PAYLOAD + MAD_LENGTH));
                }
            }
        }
        return List.copyOf(mads);
    }
}
