package io.rdma4j.tools.common;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The {@code --handshake-timeout} of the CM tools' servers: when each slot a server gave to a connection request
 * must have become a connection (ESTABLISHED, or for udaddy its first message), so that a request that never
 * completes (a peer that sends no RTU, or no message) is dropped and its slot given to the next, where the C
 * tools keep it for ever. The C tools' output is unchanged while every request completes.
 *
 * @param <N> what a slot is: the tool's node.
 */
public final class HandshakeDeadlines<N>
{
    /** The default of every tool's {@code --handshake-timeout}, in seconds. */
    public static final String DEFAULT_SECONDS = "10";

    private final int seconds;
    private final Map<N, Long> deadlines = new LinkedHashMap<>();

    /**
     * @param seconds how long a slot may wait; 0 waits for ever.
     */
    public HandshakeDeadlines(final int seconds)
    {
        this.seconds = seconds;
    }

    /**
     * @param slot a slot just given to a request; its time starts now.
     */
    public void start(final N slot)
    {
        if (seconds > 0)
        {
            deadlines.put(slot, System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds));
        }
    }

    /**
     * @param slot a slot whose request completed, or was given up: it no longer has a deadline.
     */
    public void done(final N slot)
    {
        deadlines.remove(slot);
    }

    /**
     * @param slot a slot.
     * @return true while the slot waits for its request to complete.
     */
    public boolean waiting(final N slot)
    {
        return deadlines.containsKey(slot);
    }

    /**
     * @return the slots whose time ran out, forgotten here: the caller drops their requests.
     */
    public List<N> expired()
    {
        final List<N> late = new ArrayList<>();
        final long now = System.nanoTime();
        deadlines.entrySet().removeIf(e ->
        {
            if (e.getValue() - now <= 0)
            {
                late.add(e.getKey());
                return true;
            }
            return false;
        });
        return late;
    }

    /**
     * @return the timeout in seconds.
     */
    public int seconds()
    {
        return seconds;
    }
}
