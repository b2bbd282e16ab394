package io.rdma4j.soft.engine;

import io.rdma4j.verbs.WaitDriver;

import java.util.Arrays;

/**
 * The waits whose threads sleep without the device's receive role because another thread had it when they came
 * ({@link io.rdma4j.soft.verbs.WaitDriver#await}): whoever gives the role up offers it to one of them, so
 * that a waiting thread, not the progress thread, receives next. Few at a time (a device's waiting threads); the
 * array grows once and is reused, so seeking allocates nothing after the first waits.
 */
final class RoleSeekers
{
    private final Object lock = new Object();
    private WaitDriver.Wait[] waits = new WaitDriver.Wait[4];
    /** Seekers held; written under the lock, read without it so that the usual case (none) costs no lock. */
    private volatile int size;

    /**
     * @param wait a wait that found the role taken; kept once, however often it is added.
     */
    void add(final WaitDriver.Wait wait)
    {
        synchronized (lock)
        {
            for (int i = 0; i < size; i++)
            {
                if (waits[i] == wait)
                {
                    return;
                }
            }
            if (size == waits.length)
            {
                waits = Arrays.copyOf(waits, size * 2);
            }
            waits[size] = wait;
            size = size + 1;
        }
    }

    /**
     * @param wait a wait that no longer seeks the role (it took it, or it is over).
     */
    void remove(final WaitDriver.Wait wait)
    {
        if (size == 0)
        {
            return;
        }
        synchronized (lock)
        {
            for (int i = 0; i < size; i++)
            {
                if (waits[i] == wait)
                {
                    final int last = size - 1;
                    waits[i] = waits[last];
                    waits[last] = null;
                    size = last;
                    return;
                }
            }
        }
    }

    /**
     * @return true if a wait seeks the role.
     */
    boolean any()
    {
        return size > 0;
    }

    /**
     * The role was given up: offer it to the longest-held seeker, which leaves the set (it seeks again if it finds
     * the role taken once more). Called with no lock of the device held: the offer takes the wait's own lock.
     *
     * @return true if a seeker was offered the role.
     */
    boolean offerOne()
    {
        if (size == 0)
        {
            return false;
        }
        final WaitDriver.Wait chosen;
        synchronized (lock)
        {
            if (size == 0)
            {
                return false;
            }
            chosen = waits[0];
            final int last = size - 1;
            System.arraycopy(waits, 1, waits, 0, last);
            waits[last] = null;
            size = last;
        }
        chosen.roleOffered();
        return true;
    }
}
