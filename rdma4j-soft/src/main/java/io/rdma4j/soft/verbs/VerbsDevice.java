package io.rdma4j.soft.verbs;

import io.rdma4j.soft.mcast.McastGroupTable;
import io.rdma4j.soft.transport.TransportDevice;
import io.rdma4j.soft.transport.TransportFactory;
import io.rdma4j.soft.transport.TransportQp;
import io.rdma4j.verbs.AsyncEvent;

import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * The running device as its verbs objects see it: what the transports may ask ({@link TransportDevice}), plus
 * what a verb needs beyond a packet — the device's limits, its QP and multicast tables, its async event
 * queue, and the progress hand-off a poller and a poster take part in. The engine above implements it; the
 * verbs objects never hold the engine itself, so they sit below the device agent that drives them.
 */
public interface VerbsDevice extends TransportDevice, io.rdma4j.verbs.WaitDriver
{
    /**
     * @return the device's limits.
     */
    DeviceLimits limits();

    /**
     * @return the multicast group table.
     */
    McastGroupTable<TransportQp> mcast();

    /**
     * @return what makes each QP's transport.
     */
    TransportFactory transportFactory();

    /**
     * Choose a free QP number and add the QP {@code maker} builds for it.
     *
     * @param maker builds the QP once its number is chosen; nothing is added if it throws.
     * @param <Q>   the QP's class.
     * @return the QP.
     * @throws io.rdma4j.verbs.RdmaException ENOMEM when the device has max_qp QPs.
     */
    <Q extends TransportQp> Q addQp(IntFunction<Q> maker);

    /**
     * @param qp a QP being destroyed: packets for its number find nothing from now on.
     */
    void removeQp(TransportQp qp);

    /**
     * @param timeout how long to wait.
     * @param unit    its unit.
     * @return the oldest async event not yet taken, or null after the timeout.
     * @throws InterruptedException if interrupted while waiting.
     */
    AsyncEvent takeAsyncEvent(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * Hand what was queued to the network: one system call for a burst on a batching link.
     */
    void flushSends();

    /**
     * A post queued packets: they leave now, or in polling mode with a poll coming, at that poll (a burst of
     * posts in one system call).
     */
    void sendsPosted();

    /**
     * A CQ's poll begins: in polling mode the progress thread stands back while pollers are active.
     */
    void pollBegins();

    /**
     * A CQ armed for a completion event is polled: its consumer waits on a completion channel between polls, so
     * in polling mode the progress thread must receive meanwhile instead of standing back for a busy poller.
     */
    void pollerWaits();

    /**
     * @return true if polling a CQ of this device also receives from the network (polling mode).
     */
    boolean pollsInline();

    /**
     * @return true if a thread waiting for a CQ event or a completion receives itself (polling and waiting modes):
     *     see {@link io.rdma4j.verbs.WaitDriver#await}.
     */
    boolean waitsInline();

    /**
     * In polling mode, receive a batch on the calling thread if no other thread is receiving.
     *
     * @return datagrams handled.
     */
    int progressInline();

    /**
     * @return the thread that receives packets and runs timers: memory a QP uses must be accessible by it.
     */
    Thread progressThread();
}
