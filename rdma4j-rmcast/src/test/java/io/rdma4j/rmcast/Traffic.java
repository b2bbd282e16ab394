package io.rdma4j.rmcast;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What a test's publication offered and what each subscriber got, and the property that links them: every
 * message a subscriber was owed is delivered once and in order, or a loss event covers one of its fragments.
 */
final class Traffic
{
    /** A message as offered: window slots [start, end) of its session (one slot shared by packed messages). */
    record Offered(int index, int sessionId, long start, long end, int length)
    {
    }

    /** Where the messages are built; each is a pattern of its index, so a delivered one is checked byte by byte. */
    private final MemorySegment source;
    private final List<Offered> offered = new ArrayList<>();

    Traffic(final Arena arena, final int maxLength)
    {
        source = arena.allocate(Math.max(1, maxLength));
    }

    static byte pattern(final int index, final long j)
    {
        return (byte)(index * 31 + j * 7 + (j >> 8));
    }

    List<Offered> offered()
    {
        return offered;
    }

    /**
     * Offer message number {@code offered().size()} of a length, driving the others until it goes.
     */
    Offered offer(final Publication publication, final int length, final Runnable others, final long deadlineNs)
    {
        final int index = offered.size();
        for (int j = 0; j < length; j++)
        {
            source.set(ValueLayout.JAVA_BYTE, j, pattern(index, j));
        }
        final long before = publication.position();
        long result;
        while ((result = publication.offer(source, 0, length)) < 0)
        {
            if (System.nanoTime() > deadlineNs)
            {
                fail("offer of message " + index + " still refused (" + result + ") at the deadline; " +
                    publication.counters());
            }
            others.run();
        }
        // packed into the slot the one before opened: that slot is all it takes
        final long start = result == before ? result - 1 : before;
        final Offered message = new Offered(index, publication.sessionId(), start, result, length);
        offered.add(message);
        return message;
    }

    /** A subscriber's record of one session. */
    final class Received implements MessageHandler, SubscriptionListener
    {
        final List<Offered> delivered = new ArrayList<>();
        final List<long[]> losses = new ArrayList<>();
        long startSequence = -1;
        int images;
        boolean unavailable;
        /** The offered message after the last one delivered: packed messages share an end, so order picks one. */
        private int cursor;

        @Override
        public void onMessage(final MemorySegment buffer, final long offset, final int length, final int sessionId,
            final long position)
        {
            while (cursor < offered.size() && offered.get(cursor).end() < position)
            {
                cursor++;
            }
            assertTrue(cursor < offered.size() && offered.get(cursor).end() == position,
                "delivered a message ending at " + position + " that nobody offered (or one already delivered)");
            final Offered message = offered.get(cursor++);
            assertEquals(message.length(), length, "length of message " + message.index());
            for (int j = 0; j < length; j++)
            {
                if (buffer.get(ValueLayout.JAVA_BYTE, offset + j) != pattern(message.index(), j))
                {
                    fail("message " + message.index() + " differs at byte " + j);
                }
            }
            delivered.add(message);
        }

        @Override
        public void onImageAvailable(final int sessionId, final long start)
        {
            // the first image's: a later one of the session (a rejoin) owes everything since, delivered or lost
            if (startSequence < 0)
            {
                startSequence = start;
            }
            images++;
        }

        @Override
        public void onUnrecoverableLoss(final int sessionId, final long from, final long to)
        {
            losses.add(new long[] {from, to});
        }

        @Override
        public void onImageUnavailable(final int sessionId, final long position)
        {
            unavailable = true;
        }

        int count()
        {
            return delivered.size();
        }

        /** Messages that start at or after the image's start must be delivered in order, or covered by a loss. */
        void assertEveryMessageOrLoss()
        {
            assertTrue(startSequence >= 0, "the image never became available");
            int lastIndex = -1;
            for (final Offered message : delivered)
            {
                assertTrue(message.index() > lastIndex, "message " + message.index() + " out of order or twice");
                lastIndex = message.index();
            }
            int next = 0;
            for (final Offered message : offered)
            {
                if (message.start() < startSequence)
                {
                    continue;
                }
                if (next < delivered.size() && delivered.get(next) == message)
                {
                    next++;
                    continue;
                }
                assertTrue(covered(message), "message " + message.index() + " [" + message.start() + ", " +
                    message.end() + ") neither delivered nor covered by a loss event; losses " + describe());
            }
            assertEquals(delivered.size(), next, "delivered messages not in offered order");
        }

        private boolean covered(final Offered message)
        {
            for (final long[] loss : losses)
            {
                if (loss[0] < message.end() && loss[1] > message.start())
                {
                    return true;
                }
            }
            return false;
        }

        String describe()
        {
            final StringBuilder text = new StringBuilder();
            for (final long[] loss : losses)
            {
                text.append('[').append(loss[0]).append(", ").append(loss[1]).append(") ");
            }
            return text.toString();
        }
    }

    static void await(final BooleanSupplier done, final Runnable step, final long timeoutMs, final String what)
    {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (!done.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                fail("not within " + timeoutMs + " ms: " + what);
            }
            step.run();
        }
    }
}
