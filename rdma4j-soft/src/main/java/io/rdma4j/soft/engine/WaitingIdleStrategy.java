package io.rdma4j.soft.engine;

import org.agrona.concurrent.IdleStrategy;

/**
 * An Agrona idle strategy that does nothing after a cycle that worked and waits on something (the socket, a
 * condition) after one that did not: the shape of the device's and the CM's default strategies, which keep no
 * back-off state, so {@link #reset} has nothing to do.
 */
public abstract class WaitingIdleStrategy implements IdleStrategy
{
    @Override
    public final void idle(final int workCount)
    {
        if (workCount <= 0)
        {
            idle();
        }
    }

    @Override
    public final void reset()
    {
    }
}
