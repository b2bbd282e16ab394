package io.rdma4j.soft.link;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The inbox ring on its own: records in order across the wrap, full as a refusal, several producers at
 * once, and memory that another process scribbled on read as {@link ShmRing#CORRUPT}, never as an exception.
 */
@Timeout(60)
class ShmRingTest
{
    private static final int CAPACITY = 64 * 1024;

    private final Arena arena = Arena.ofAuto();
    private final MemorySegment control = arena.allocate(ShmRing.CONTROL_BYTES, 64);
    private final MemorySegment data = arena.allocate(CAPACITY, 64);
    private final ByteBuffer out = ByteBuffer.allocateDirect(65536);

    @Test
    void recordsComeOutInOrderWithTheirSenderAcrossManyWraps()
    {
        final ShmRing ring = new ShmRing(control, data);
        final Random random = new Random(1);
        for (int i = 0; i < 5000; i++)
        {
            final int length = 8 + random.nextInt(3000);
            assertEquals(ShmRing.OK, ring.offer(payload(i, length), 0x7F000001 + i, 4791, i & 0xFFFF));
            assertEquals(ShmRing.OK, ring.poll(out));
            assertEquals(length, out.limit());
            assertEquals(i, out.getInt(0));
            assertEquals((byte)(i + length - 1), out.get(length - 1));
            assertEquals(0x7F000001 + i, ring.polledSourceIpv4());
            assertEquals(4791, ring.polledSourcePort());
            assertEquals(i & 0xFFFF, ring.polledIpIdentification());
        }
        assertEquals(ShmRing.EMPTY, ring.poll(out));
        assertTrue(ring.head() > 10L * CAPACITY, "the test never wrapped");
    }

    @Test
    void aFullRingRefusesUntilTheConsumerFreesSpace()
    {
        final ShmRing ring = new ShmRing(control, data);
        int accepted = 0;
        while (ring.offer(payload(accepted, 1000), 1, 2, 0) == ShmRing.OK)
        {
            accepted++;
        }
        // 1000 bytes + a 24-byte header, 8-aligned: 64 of them fill 64 KiB
        assertEquals(CAPACITY / 1024, accepted);
        assertEquals(ShmRing.FULL, ring.offer(payload(0, 1000), 1, 2, 0));
        assertEquals(ShmRing.OK, ring.poll(out));
        assertEquals(0, out.getInt(0));
        assertEquals(ShmRing.OK, ring.offer(payload(accepted, 1000), 1, 2, 0));
        for (int i = 1; i <= accepted; i++)
        {
            assertEquals(ShmRing.OK, ring.poll(out));
            assertEquals(i, out.getInt(0));
        }
        assertEquals(ShmRing.EMPTY, ring.poll(out));
    }

    @Test
    void producersOnSeveralThreadsLoseNothingAndKeepEachOnesOrder() throws Exception
    {
        final ShmRing ring = new ShmRing(control, data);
        final int producers = 3;
        final int perProducer = 20_000;
        final Thread[] threads = new Thread[producers];
        for (int p = 0; p < producers; p++)
        {
            final int producer = p;
            threads[p] = Thread.ofPlatform().start(() ->
            {
                final ByteBuffer record = ByteBuffer.allocateDirect(64);
                for (int i = 0; i < perProducer; i++)
                {
                    record.clear();
                    record.putInt(0, i);
                    record.limit(8 + (i % 56));
                    while (ring.offer(record, producer, 0, 0) == ShmRing.FULL)
                    {
                        Thread.onSpinWait();
                    }
                }
            });
        }
        final int[] next = new int[producers];
        int received = 0;
        final long deadline = System.nanoTime() + 50_000_000_000L;
        while (received < producers * perProducer && System.nanoTime() < deadline)
        {
            final int result = ring.poll(out);
            if (result == ShmRing.OK)
            {
                final int producer = ring.polledSourceIpv4();
                assertEquals(next[producer], out.getInt(0), "producer " + producer);
                assertEquals(8 + next[producer] % 56, out.limit());
                next[producer]++;
                received++;
            }
            else
            {
                assertEquals(ShmRing.EMPTY, result);
            }
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertEquals(producers * perProducer, received);
    }

    @Test
    void scribbledRecordsAndPositionsAreCorruptNotExceptions()
    {
        scribbleFirstRecords(false, 6, new Random(5));
        // positions no producer makes: a tail behind the head, or more than a ring ahead
        for (final long[] positions : new long[][] {{0, 64}, {CAPACITY + 8L, 0}, {3, 0}})
        {
            control.set(ValueLayout.JAVA_LONG, ShmRing.TAIL_OFFSET, positions[0]);
            control.set(ValueLayout.JAVA_LONG, ShmRing.HEAD_OFFSET, positions[1]);
            assertEquals(ShmRing.CORRUPT, new ShmRing(control, data).offer(payload(0, 10), 1, 2, 3));
        }
    }

    @Test
    void ipv6RecordsCarryTheSendersSixteenBytesAcrossWraps()
    {
        final ShmRing ring = new ShmRing(control, data, true);
        final Random random = new Random(7);
        for (int i = 0; i < 3000; i++)
        {
            final int length = 8 + random.nextInt(3000);
            final long high = 0x2001_0db8_0000_0000L + i;
            final long low = -1L - i;
            assertEquals(ShmRing.OK,
                ring.offer(payload(i, length), null, 0, 0, null, 0, high, low, 4791 + i, 0, false));
            assertEquals(ShmRing.OK, ring.poll(out));
            assertEquals(length, out.limit());
            assertEquals(i, out.getInt(0));
            assertEquals((byte)(i + length - 1), out.get(length - 1));
            assertEquals(high, ring.polledSourceIpv6High());
            assertEquals(low, ring.polledSourceIpv6Low());
            assertEquals(0, ring.polledSourceIpv4());
            assertEquals(4791 + i, ring.polledSourcePort());
        }
        assertTrue(ring.head() > 10L * CAPACITY, "the test never wrapped");
        assertEquals(ring.capacity() / 8 - ShmRing.HEADER_BYTES_IPV6, ring.maxPayload());
    }

    @Test
    void aRecordOfTheOtherFamilyOrShorterThanItsHeaderIsCorrupt()
    {
        // an IPv4 record (another version, or a forger) in an IPv6 device's ring
        assertEquals(ShmRing.OK, new ShmRing(control, data).offer(payload(1, 100), 1, 2, 3));
        assertEquals(ShmRing.CORRUPT, new ShmRing(control, data, true).poll(out));

        // and the other way round
        control.fill((byte)0);
        data.fill((byte)0);
        assertEquals(ShmRing.OK, new ShmRing(control, data, true).offer(payload(1, 100), null, 0, 0, null, 0, 1, 2,
            3, 0, false));
        assertEquals(ShmRing.CORRUPT, new ShmRing(control, data).poll(out));

        // an IPv6 record truncated to the IPv4 header's length, payload length to match: its address would be
        // read from the payload, so it is refused
        control.fill((byte)0);
        data.fill((byte)0);
        final ShmRing ipv6 = new ShmRing(control, data, true);
        assertEquals(ShmRing.OK, ipv6.offer(payload(1, 100), null, 0, 0, null, 0, 1, 2, 3, 0, false));
        for (final int length : new int[] {ShmRing.HEADER_BYTES, ShmRing.HEADER_BYTES_IPV6 - 1, 8})
        {
            data.set(ValueLayout.JAVA_INT, 20, length - ShmRing.HEADER_BYTES);
            data.set(ValueLayout.JAVA_INT, 0, length);
            assertEquals(ShmRing.CORRUPT, ipv6.poll(out), "a record of " + length + " bytes");
        }
    }

    @Test
    void scribbledIpv6RecordsAreCorruptNotExceptions()
    {
        scribbleFirstRecords(true, 10, new Random(9));
    }

    @Test
    void aPayloadWhoseArenaClosedIsRefusedNotThrownNorPublished()
    {
        final ShmRing ring = new ShmRing(control, data);
        final Arena closing = Arena.ofShared();
        final MemorySegment payload = closing.allocate(256);
        payload.fill((byte)0x5E);
        closing.close();
        final ByteBuffer head = payload(1, 12);
        // the sender hears the datagram is not its own (its UC message must not complete as sent), the
        // receiver gets no record of it
        assertEquals(ShmRing.PAYLOAD_GONE, ring.offer(head, payload, 0, 256, null, 1, 0, 0, 2, 3, false));
        assertEquals(ShmRing.EMPTY, ring.poll(out));
        // the ring goes on
        assertEquals(ShmRing.OK, ring.offer(payload(2, 100), 1, 2, 3));
        assertEquals(ShmRing.OK, ring.poll(out));
        assertEquals(2, out.getInt(0));
    }

    @Test
    void aRecordSaysWhetherItsSenderLeftTheIcrcOutInEitherFamily()
    {
        for (final boolean ipv6 : new boolean[] {false, true})
        {
            control.fill((byte)0);
            data.fill((byte)0);
            final ShmRing ring = new ShmRing(control, data, ipv6);
            final MemorySegment payload = arena.allocate(64);
            payload.fill((byte)0x3C);
            for (int i = 0; i < 6; i++)
            {
                final boolean omitted = i % 2 == 0;
                assertEquals(ShmRing.OK,
                    ring.offer(payload(i, 12), payload, 0, 64, payload(9, 4), 1, 5, 6, 2, 3, omitted));
            }
            for (int i = 0; i < 6; i++)
            {
                assertEquals(ShmRing.OK, ring.poll(out), "record " + i);
                assertEquals(i % 2 == 0, ring.polledIcrcOmitted(), "record " + i + ", IPv6 " + ipv6);
                assertEquals(12 + 64 + 4, out.limit());
                assertEquals(i, out.getInt(0));
                assertEquals((byte)0x3C, out.get(12 + 63));
            }
            assertEquals(ShmRing.EMPTY, ring.poll(out));
        }
    }

    @Test
    void aPaddingRecordThatDoesNotReachTheEndIsCorrupt()
    {
        final ShmRing ring = new ShmRing(control, data);
        data.set(ValueLayout.JAVA_INT, 4, 2);
        data.set(ValueLayout.JAVA_INT, 0, 64);
        assertEquals(ShmRing.CORRUPT, ring.poll(out));
    }

    /** A hostile process writes anything into one of the first record's header fields, trial after trial. */
    private void scribbleFirstRecords(final boolean ipv6, final int headerInts, final Random random)
    {
        for (int trial = 0; trial < 2000; trial++)
        {
            control.fill((byte)0);
            data.fill((byte)0);
            final ShmRing ring = new ShmRing(control, data, ipv6);
            assertEquals(ShmRing.OK, ring.offer(payload(trial, 100), null, 0, 0, null, 1, 5, 6, 2, 3, false));
            final int field = random.nextInt(headerInts) * 4;
            data.set(ValueLayout.JAVA_INT, field, random.nextBoolean() ? random.nextInt() :
                random.nextInt(200) - 50);
            final int result = ring.poll(out);
            assertTrue(result == ShmRing.OK || result == ShmRing.CORRUPT || result == ShmRing.EMPTY,
                "poll gave " + result);
            if (result == ShmRing.OK)
            {
                // only fields the checks do not cover (the sender's address, port, identification) changed
                assertEquals(100, out.limit());
            }
        }
    }

    private static ByteBuffer payload(final int index, final int length)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(Math.max(length, 4));
        for (int i = 0; i < length; i++)
        {
            buffer.put(i, (byte)(index + i));
        }
        if (length >= 4)
        {
            buffer.putInt(0, index);
        }
        buffer.limit(length);
        return buffer;
    }
}
