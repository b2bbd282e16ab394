package io.rdma4j.verbs;

/**
 * Who turns arriving packets into completions on a device, which decides what a thread polling its CQs busy buys
 * ({@link Context#progressMode()}). libibverbs has no such query: there the device always does it.
 */
public enum ProgressMode
{
    /**
     * The device itself (an RDMA NIC, or the kernel for rxe): a poll only reads what is there already, so a busy
     * poller sees a completion without a wake-up, at the price of its core.
     */
    DEVICE,
    /**
     * A software device that receives on the thread that polls an empty CQ, and on a thread that waits for a CQ
     * event or a completion (its progress thread parks meanwhile): a busy poller runs the device itself, with no
     * thread hand-off at all, and a sleeping waiter wakes once per datagram, as a blocking socket's reader does.
     */
    POLLING,
    /**
     * A software device that receives on a thread that waits for a CQ event or a completion, as {@link #POLLING}
     * does, while a poll only reads what is there: a busy poller competes with the receiving thread for a core.
     */
    WAITING,
    /**
     * A software device whose own progress thread receives and completes everything: a busy poller only reads
     * what that thread made, and competes with it for a core.
     */
    THREAD
}
