package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.WaitSet;
import io.rdma4j.verbs.Waitable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The connection manager's event channel in a WaitSet beside a completion channel of the device it serves: a
 * connection request, which the connection manager's thread queues, ends the wait of the thread that was
 * receiving for the device in the set, and the set names the event channel as the ready one.
 */
@Timeout(60)
class CmWaitSetTest
{
    private final ConnectionManager cm = ConnectionManager.create(CmTesting.SHARED, new FakeCmClock(),
        ConnectionManager.DEFAULT_QUEUE_CAPACITY);

    @AfterEach
    void stopTheCm()
    {
        cm.stop();
    }

    @Test
    void shouldEndTheWaitWhenAConnectionRequestIsQueued() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); CmPeers peers = new CmPeers(fabric, cm);
            WaitSet set = WaitSet.create())
        {
            final CmId client = peers.resolvedClient();
            final CompletionChannel completions = peers.listener.verbs().createCompChannel();
            final CompletionQueue cq = peers.listener.verbs().createCq(4, completions, 0);
            cq.requestNotify(false);
            set.add(completions);
            set.add(peers.serverChannel);
            final Waitable[] ready = new Waitable[2];
            assertEquals(0, set.await(ready, 0, TimeUnit.SECONDS), "nothing yet");

            final Thread connecting = Thread.ofPlatform().start(() ->
            {
                peers.rcQp(client);
                client.connect(null);
            });
            assertEquals(1, set.await(ready, 30, TimeUnit.SECONDS));
            assertSame(peers.serverChannel, ready[0]);
            final CmEvent request = peers.serverChannel.getEvent(0, TimeUnit.SECONDS);
            assertEquals(CmEventType.CONNECT_REQUEST, request.type());
            request.ack();
            request.id().close();
            connecting.join();
            assertNull(completions.getCqEvent(0, TimeUnit.SECONDS), "the completion channel stayed quiet");
            set.close();
            cq.close();
            completions.close();
        }
    }
}
