package io.rdma4j.soft.verbs;

/**
 * A thread's wait for something the device makes (a CQ event, a completion, a CM event), as the device's receive
 * role sees it: a thread that waits may take that role and receive itself instead of sleeping until the progress
 * thread has received for it ({@link VerbsDevice#awaitReceiving}). A blocking socket wakes its reader once per
 * datagram; so does a device whose waiting thread receives.
 */
public interface DeviceWait
{
    /**
     * @return true once the wait is over: what it waits for has come, or it was woken or closed. Read by the thread
     *     that receives for the wait after every batch, so it must be cheap (a volatile read) and allocate nothing.
     */
    boolean satisfied();

    /**
     * The receive role became free while the thread of this wait slept without it (another thread had it): wake
     * that thread, so that it takes the role rather than leave the device to the progress thread. Called with no
     * lock of the device held.
     */
    void roleOffered();
}
