package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.soft.CapturedLog;
import io.rdma4j.verbs.Errno;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import static io.rdma4j.soft.cm.CmTestSupport.boundId;
import static io.rdma4j.soft.cm.CmTestSupport.expect;
import static io.rdma4j.soft.cm.CmTestSupport.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue "Hardening", acknowledgements: an event taken in try-with-resources is acknowledged however
 * the block ends, and a destroy or leave that waits for a forgotten acknowledgement says so.
 */
@Timeout(60)
class CmEventAckTest
{
    private final ConnectionManager cm = ConnectionManager.create(CmTesting.SHARED, CmClock.system(),
        ConnectionManager.DEFAULT_QUEUE_CAPACITY);

    @AfterEach
    void stopTheCm()
    {
        cm.stop();
    }

    @Test
    void shouldAcknowledgeAnEventInTryWithResourcesWhenTheBodyThrows() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); EventChannel channel = SoftEventChannel.create(cm))
        {
            fabric.device(1);
            final CmId id = channel.createId(null, io.rdma4j.cm.PortSpace.TCP);
            id.resolveAddr(fabric.socketAddress(1, 0), fabric.socketAddress(1, 9), 1000);
            CmEvent taken = null;
            try (CmEvent event = channel.getEvent(10, TimeUnit.SECONDS))
            {
                taken = event;
                assertEquals(CmEventType.ADDR_RESOLVED, event.type());
                throw new IllegalStateException("the application's handler fails");
            }
            catch (final IllegalStateException expected)
            {
                // the event was acknowledged on the way out
            }
            taken.close();
            refused(Errno.EINVAL, taken::ack);
            // with the event acknowledged, destroying the id does not wait (the @Timeout would end a hang)
            id.close();
            assertEquals(0, ((SoftEventChannel)channel).ackWaiters());
        }
    }

    @Test
    void shouldWarnNamingTheEventAndTheIdWhileCloseWaitsForAnAck() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); EventChannel channel = SoftEventChannel.create(cm);
            CapturedLog log = new CapturedLog(SoftEventChannel.class))
        {
            fabric.device(1);
            final CmId id = channel.createId(null, io.rdma4j.cm.PortSpace.TCP);
            id.resolveAddr(fabric.socketAddress(1, 0), fabric.socketAddress(1, 9), 1000);
            final CmEvent forgotten = expect(channel, CmEventType.ADDR_RESOLVED);
            final Thread closer = Thread.ofPlatform().start(id::close);

            final LogRecord warning = log.await();
            assertEquals(Level.WARNING, warning.getLevel());
            assertTrue(warning.getMessage().contains("RDMA_CM_EVENT_ADDR_RESOLVED"), warning.getMessage());
            assertTrue(warning.getMessage().contains(id.localAddress().toString()), warning.getMessage());
            assertTrue(warning.getMessage().startsWith("close"), warning.getMessage());
            assertTrue(closer.isAlive(), "close still waits: rdma_cm's rule stays");

            forgotten.ack();
            closer.join();
        }
    }

    @Test
    void shouldWarnWhileLeaveWaitsForTheJoinEventsAck() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); EventChannel channel = SoftEventChannel.create(cm);
            CapturedLog log = new CapturedLog(SoftEventChannel.class))
        {
            fabric.device(1);
            final CmId id = boundId(channel, fabric, 1, null);
            final InetSocketAddress group = CmFabric.group();
            id.joinMulticast(group, null);
            final CmEvent forgotten = expect(channel, CmEventType.MULTICAST_JOIN);
            final Thread leaver = Thread.ofPlatform().start(() -> id.leaveMulticast(group));

            final LogRecord warning = log.await();
            assertTrue(warning.getMessage().startsWith("leaveMulticast"), warning.getMessage());
            assertTrue(warning.getMessage().contains("RDMA_CM_EVENT_MULTICAST_JOIN"), warning.getMessage());
            assertTrue(warning.getMessage().contains(group.toString()), warning.getMessage());

            forgotten.close();
            leaver.join();
            id.close();
        }
    }
}
