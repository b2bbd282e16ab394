package io.rdma4j.soft;

import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.WorkCompletion;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The device's progress thread runs under Agrona's agent runner with the idle strategy the builder is given:
 * here a backoff strategy that spins, yields, then parks, in place of the default wait on the socket. The
 * device still receives (thread mode: only its progress thread does).
 */
@Timeout(60)
class ProgressIdleStrategyTest
{
    @Test
    void shouldIdleTheProgressThreadWithTheGivenStrategyAndStillReceive()
    {
        final Set<String> idlers = ConcurrentHashMap.newKeySet();
        final IdleStrategy backoff = new BackoffIdleStrategy();
        final IdleStrategy recording = new IdleStrategy()
        {
            @Override
            public void idle(final int workCount)
            {
                if (workCount == 0)
                {
                    idlers.add(Thread.currentThread().getName());
                }
                backoff.idle(workCount);
            }

            @Override
            public void idle()
            {
                idle(0);
            }

            @Override
            public void reset()
            {
                backoff.reset();
            }
        };
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context receiverContext = SoftDevice.builder("idler", fabric.address(74))
                .link(address -> fabric.network().attach(address))
                .idleStrategy(recording)
                .build().open();
            fabric.adopt(receiverContext);
            final UdEndpoint receiver = new UdEndpoint(receiverContext);
            final UdEndpoint sender = new UdEndpoint(fabric.open());
            receiver.postRecvs(2);

            sender.send(sender.ahTo(receiver.gid()), receiver.qp.qpNum(), UdEndpoint.QKEY, "through the runner", 1);

            final List<WorkCompletion> got = receiver.poll(1, 10_000);
            assertEquals("through the runner", receiver.text(got.getFirst()));
            assertTrue(idlers.contains("rdma4j-idler"), "the progress thread idled with the given strategy: " + idlers);
        }
    }
}
