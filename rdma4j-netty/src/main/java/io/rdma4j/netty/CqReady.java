package io.rdma4j.netty;

/**
 * The completion queue a registration submitted ({@link RdmaIoOps}) is to be taken: it announced completions, the
 * loop polls it busy, or its linger ran out. One per registration, filled again for each dispatch, as Netty's
 * io_uring registrations reuse their event: a dispatch allocates nothing. Valid only within
 * {@link RdmaIoHandle#handle}, on the loop.
 */
final class CqReady implements RdmaIoEvent
{
    /** Why the handler dispatches. */
    enum Kind
    {
        /** The CQ announced completions: re-arm it, then take them all. */
        NOTIFIED,
        /** A busy poll: take what is there without arming (in the software device's polling mode it receives). */
        POLLED,
        /** The endpoint waited for its SENDs past its linger deadline, or the loop goes away: tear it down now. */
        EXPIRED
    }

    private Kind kind;
    private boolean found;

    /**
     * @param why why it is dispatched.
     * @return this, reset: nothing found yet.
     */
    CqReady reset(final Kind why)
    {
        kind = why;
        found = false;
        return this;
    }

    /**
     * @return why it is dispatched.
     */
    Kind kind()
    {
        return kind;
    }

    /** The handle took at least one completion: the loop's busy polls start over. */
    void found()
    {
        found = true;
    }

    /**
     * @return whether the handle took a completion.
     */
    boolean wasFound()
    {
        return found;
    }

    @Override
    public String toString()
    {
        return "CqReady[" + kind + (found ? ", found" : "") + "]";
    }
}
