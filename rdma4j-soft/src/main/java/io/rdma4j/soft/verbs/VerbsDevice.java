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
public interface VerbsDevice extends TransportDevice
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
     *     see {@link #awaitReceiving}.
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

    /** {@link #awaitReceiving}: the wait is satisfied. */
    int WAIT_SATISFIED = 1;
    /** {@link #awaitReceiving}: the time ran out first. */
    int WAIT_TIMED_OUT = 0;
    /**
     * {@link #awaitReceiving}: another thread has the receive role (or this device's waiters never take it): sleep
     * until the wait is satisfied or {@link DeviceWait#roleOffered} says the role is free.
     */
    int WAIT_ROLE_BUSY = -1;

    /**
     * A thread is about to sleep until {@code wait} is satisfied. Where this device's waiters receive (polling and
     * waiting modes) and no other thread has the receive role, the calling thread takes it: it waits on the link
     * (the socket and the same-host inbox) itself, runs the receive path, the batch-end work and the timers that
     * fall due, and returns once {@code wait} is satisfied, so a datagram costs it one wake-up, as a blocking
     * socket's read does. Otherwise it returns {@link #WAIT_ROLE_BUSY} at once, and {@code wait} is told when the
     * role is free ({@link DeviceWait#roleOffered}) until {@link #stopSeeking} or a later call that takes the role.
     * Whoever satisfies the wait from another thread calls {@link #wakeReceiver}.
     *
     * @param wait      what the thread waits for.
     * @param timeoutNs the longest wait; negative waits until satisfied.
     * @return {@link #WAIT_SATISFIED}, {@link #WAIT_TIMED_OUT} or {@link #WAIT_ROLE_BUSY}.
     */
    int awaitReceiving(DeviceWait wait, long timeoutNs);

    /**
     * @param wait a wait that {@link #awaitReceiving} left seeking the role, now over: no longer offered it.
     */
    void stopSeeking(DeviceWait wait);

    /**
     * A wait whose thread may be receiving in the link's wait ({@link #awaitReceiving}) was satisfied by the
     * calling thread: end that link wait, unless the caller is that thread.
     *
     * @param receiver the thread that {@link #awaitReceiving} is running on.
     */
    void wakeReceiver(Thread receiver);
}
