package io.rdma4j.cm;

import io.rdma4j.verbs.Errno;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link EventChannel#expect}: the expected event comes back unacknowledged; another event is
 * acknowledged and turned into an exception that says what came and what its status means; no event
 * is ETIMEDOUT.
 */
class EventChannelExpectTest
{
    @Test
    void shouldReturnTheExpectedEventWithoutAcknowledgingIt() throws Exception
    {
        final QueuedChannel channel = new QueuedChannel();
        final FakeCmEvent established = channel.add(CmEventType.ESTABLISHED, 0, null);

        final CmEvent event = channel.expect(CmEventType.ESTABLISHED, 1, TimeUnit.SECONDS);

        assertSame(established, event);
        assertFalse(established.acked(), "the caller acknowledges the event it asked for");
    }

    @Test
    void shouldAcknowledgeAnUnexpectedEventAndDecodeItsRejectReason()
    {
        final QueuedChannel channel = new QueuedChannel();
        final byte[] why = "busy".getBytes(StandardCharsets.US_ASCII);
        final FakeCmEvent rejected = channel.add(CmEventType.REJECTED, RejectReason.CONSUMER_DEFINED.code(), why);

        final CmEventException ex = assertThrows(CmEventException.class,
            () -> channel.expect(CmEventType.ESTABLISHED, 1, TimeUnit.SECONDS));

        assertTrue(rejected.acked(), "an event the caller never sees must not block a later destroy");
        assertEquals(Errno.ECONNREFUSED, ex.errno());
        assertEquals(CmEventType.ESTABLISHED, ex.expected());
        assertEquals(CmEventType.REJECTED, ex.received());
        assertEquals(28, ex.status());
        assertArrayEquals(why, ex.privateData());
        assertTrue(ex.getMessage().contains("CONSUMER_DEFINED (28): rejected by the peer application"),
            ex.getMessage());
    }

    @Test
    void shouldNameTheErrnoOfAFailedEvent()
    {
        final QueuedChannel channel = new QueuedChannel();
        channel.add(CmEventType.UNREACHABLE, -Errno.ETIMEDOUT.code(), null);

        final CmEventException ex = assertThrows(CmEventException.class,
            () -> channel.expect(CmEventType.ESTABLISHED, 1, TimeUnit.SECONDS));

        assertEquals(Errno.ETIMEDOUT, ex.errno());
        assertTrue(ex.getMessage().contains("RDMA_CM_EVENT_UNREACHABLE with status -ETIMEDOUT (-110)"),
            ex.getMessage());
    }

    @Test
    void shouldTimeOutWhenNoEventComes()
    {
        final CmEventException ex = assertThrows(CmEventException.class,
            () -> new QueuedChannel().expect(CmEventType.CONNECT_REQUEST, 5, TimeUnit.MILLISECONDS));

        assertEquals(Errno.ETIMEDOUT, ex.errno());
        assertNull(ex.received());
        assertTrue(ex.getMessage().contains("no RDMA_CM_EVENT_CONNECT_REQUEST within 5 milliseconds"),
            ex.getMessage());
    }

    @Test
    void shouldDescribeStatusesAsLibrdmacmUsersReadThem()
    {
        assertEquals("INVALID_SERVICE_ID (8): invalid service ID: nobody listens on that port",
            new FakeCmEvent(CmEventType.REJECTED, null, null, 8, null).statusDescription());
        assertEquals("ok", CmStatus.describe(CmEventType.ESTABLISHED, 0));
        assertEquals("INVALID_SERVICE_ID (8): invalid service ID: nobody listens on that port",
            CmStatus.describe(CmEventType.REJECTED, 8));
        assertEquals("reason 99", CmStatus.describe(CmEventType.REJECTED, 99));
        assertEquals("-EADDRNOTAVAIL (-99)", CmStatus.describe(CmEventType.ADDR_ERROR, -99));
        assertEquals("errno 4095 (-4095)", CmStatus.describe(CmEventType.ADDR_ERROR, -4095));
    }

    /** Events queued by the test; {@code getEvent} takes them in order and returns null when none is left. */
    private static final class QueuedChannel implements EventChannel
    {
        private final Deque<FakeCmEvent> events = new ArrayDeque<>();

        FakeCmEvent add(final CmEventType type, final int status, final byte[] privateData)
        {
            final FakeCmEvent event = new FakeCmEvent(type, null, null, status,
                privateData == null ? null : ConnParam.withPrivateData(privateData));
            events.add(event);
            return event;
        }

        @Override
        public CmId createId(final Object context, final PortSpace portSpace)
        {
            throw new UnsupportedOperationException("not needed by these tests");
        }

        @Override
        public CmEvent getEvent(final long timeout, final TimeUnit unit)
        {
            return events.poll();
        }

        @Override
        public void close()
        {
        }
    }
}
