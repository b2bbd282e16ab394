package io.rdma4j.verbs;

/**
 * How a provider lets the thread that waits do the device's work itself, for its channels' waits and a
 * {@link WaitSet}'s: the software device's waiting thread takes its receive role, waits on its socket and runs its
 * receive path, so a datagram wakes that thread once, as a blocking socket's read does. A provider whose device
 * works on its own (an RDMA NIC) has none. For providers; applications wait through channels and {@link WaitSet}.
 */
public interface WaitDriver
{
    /** {@link #await}: the wait is satisfied. */
    int SATISFIED = 1;
    /** {@link #await}: the time ran out first. */
    int TIMED_OUT = 0;
    /**
     * {@link #await}: another thread does the device's work (or this device's waiters never do it): sleep until the
     * wait is satisfied or {@link Wait#roleOffered} says the work is free to take.
     */
    int ROLE_BUSY = -1;
    /** {@link Wait#waitables()} of a wait for no channel in particular. */
    Waitable[] NO_CHANNELS = {};

    /**
     * What a thread waits for, as the driver sees it.
     */
    interface Wait
    {
        /**
         * @return true once the wait is over: what it waits for has come, or it was woken or closed. Read after
         *     every batch of the device's work, so it must be cheap (a volatile read) and allocate nothing.
         */
        boolean satisfied();

        /**
         * The device's work became free to take while the thread of this wait slept without it: wake that thread.
         * Called with no lock of the device held.
         */
        void roleOffered();

        /**
         * @return the channels the wait is for (a {@link WaitSet}'s members): a driver that sleeps in {@code poll(2)}
         *     watches the {@link Waitable#descriptor descriptors} of those that have one. The caller's array, read
         *     and never written; a new array after the set changes (and a wake-up with it).
         */
        default Waitable[] waitables()
        {
            return NO_CHANNELS;
        }
    }

    /**
     * Wait until {@code wait} is satisfied, doing the device's work on the calling thread if no other thread does;
     * otherwise return {@link #ROLE_BUSY} at once, and tell {@code wait} when the work is free
     * ({@link Wait#roleOffered}) until {@link #stopSeeking} or a later call that takes it. Whoever satisfies the
     * wait from another thread calls {@link #wakeReceiver}.
     *
     * @param wait      what the thread waits for.
     * @param timeoutNs the longest wait; negative waits until satisfied.
     * @return {@link #SATISFIED}, {@link #TIMED_OUT} or {@link #ROLE_BUSY}.
     */
    int await(Wait wait, long timeoutNs);

    /**
     * @param wait a wait that {@link #await} left seeking the work, now over.
     */
    void stopSeeking(Wait wait);

    /**
     * A wait whose thread may be doing the device's work in {@link #await} was satisfied by the calling thread: end
     * that thread's wait on the device, unless the caller is that thread.
     *
     * @param receiver the thread that {@link #await} runs on.
     */
    void wakeReceiver(Thread receiver);
}
