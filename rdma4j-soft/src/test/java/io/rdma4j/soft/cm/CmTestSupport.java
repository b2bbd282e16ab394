package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.function.Executable;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * What the connection-manager tests share: waiting for an event of a type, checking a refusal's
 * errno, a UDP-space id bound on a fabric host, and waiting for the CM's own progress (an ack waiter,
 * a connection's phase) without sleeping.
 */
final class CmTestSupport
{
    private CmTestSupport()
    {
    }

    static CmEvent expect(final EventChannel channel, final CmEventType type) throws InterruptedException
    {
        final CmEvent event = channel.getEvent(10, TimeUnit.SECONDS);
        assertNotNull(event, "no " + type + " within 10 s");
        assertEquals(type, event.type(), () -> "status " + event.status());
        return event;
    }

    static void expectAndAck(final EventChannel channel, final CmEventType type) throws InterruptedException
    {
        expect(channel, type).ack();
    }

    static RdmaException refused(final Errno errno, final Executable call)
    {
        final RdmaException ex = assertThrows(RdmaException.class, call);
        assertEquals(errno, ex.errno(), ex::getMessage);
        return ex;
    }

    static CmId boundId(final EventChannel channel, final CmFabric fabric, final int host, final Object context)
    {
        final CmId id = channel.createId(context, PortSpace.UDP);
        id.bindAddr(fabric.socketAddress(host, 0));
        return id;
    }

    static void awaitAckWaiter(final EventChannel channel)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (((SoftEventChannel)channel).ackWaiters() == 0)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("nothing started waiting for acknowledgements");
            }
            Thread.onSpinWait();
        }
    }

    /** Wait until the id's connection has reached a phase (the CM thread moves it). */
    static void awaitPhase(final CmId id, final CmConnection.Phase phase)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (((SoftCmId)id).connectionPhase() != phase)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("the connection is " + ((SoftCmId)id).connectionPhase() + ", not " + phase);
            }
            Thread.onSpinWait();
        }
    }

    /** @return the attribute of a CM MAD in a RoCEv2 datagram to QP1 (BTH, DETH, then the MAD), or -1. */
    static int madAttribute(final byte[] datagram)
    {
        final int destQp = ((datagram[5] & 0xFF) << 16) | ((datagram[6] & 0xFF) << 8) | (datagram[7] & 0xFF);
        if (destQp != 1 || datagram.length < 20 + 24)
        {
            return -1;
        }
        return ((datagram[20 + 16] & 0xFF) << 8) | (datagram[20 + 17] & 0xFF);
    }
}
