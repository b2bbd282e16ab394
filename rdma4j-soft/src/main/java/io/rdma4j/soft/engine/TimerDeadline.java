package io.rdma4j.soft.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The earliest deadline any QP's timer may have, shared by the threads that arm timers (a posting
 * thread arms its QP's retransmission timer) and the thread that runs them (the progress thread, or a
 * poller in polling mode, holding the receive lock).
 * <p>
 * No deadline may be lost: a lost one leaves a QP whose request or its ACK was dropped waiting for a
 * retransmission that never comes, a hang on a lossy network. Two writes could lose one:
 * <ul>
 *     <li>two threads arming at once, each having read the old value: {@link #lower} is a
 *     compare-and-set loop, so the lower of the two stays;</li>
 *     <li>a thread arming while the timers run, after the run has looked at its QP: had the runner
 *     then stored what the run found, it would have overwritten that deadline. So the runner clears the
 *     deadline before the run ({@link #runBegins}) and only lowers it with what the run found
 *     ({@link #runEnded}).</li>
 * </ul>
 */
final class TimerDeadline
{
    /** No timer armed. */
    static final long NONE = Long.MAX_VALUE;

    private static final VarHandle DEADLINE;

    static
    {
        try
        {
            DEADLINE = MethodHandles.lookup().findVarHandle(TimerDeadline.class, "deadlineNs", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private volatile long deadlineNs = NONE;

    /**
     * @return the earliest deadline armed and not yet run, or {@link #NONE}.
     */
    long get()
    {
        return deadlineNs;
    }

    /**
     * A timer was armed: keep its deadline if it is earlier than the one held.
     *
     * @param deadline a deadline.
     * @return true if it lowered the deadline held (whoever waits for it may need waking).
     */
    boolean lower(final long deadline)
    {
        long held = deadlineNs;
        while (deadline < held)
        {
            final long witness = (long)DEADLINE.compareAndExchange(this, held, deadline);
            if (witness == held)
            {
                return true;
            }
            held = witness;
        }
        return false;
    }

    /**
     * The runner is about to run every QP's timers: what they report replaces what is held, and
     * whatever is armed from now on is kept.
     */
    void runBegins()
    {
        deadlineNs = NONE;
    }

    /**
     * @param next the earliest deadline the run reported: held from now on, unless one armed during the
     *     run is earlier.
     */
    void runEnded(final long next)
    {
        lower(next);
    }
}
