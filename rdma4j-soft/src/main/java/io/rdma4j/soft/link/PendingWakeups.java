package io.rdma4j.soft.link;

import java.net.InetAddress;
import java.util.function.Predicate;

/**
 * The same-host peers owed a wake-up by datagrams queued into their inboxes and not yet flushed: the wake-up (an
 * empty UDP datagram to a peer whose receiver sleeps) goes at the flush, after every datagram of the burst is in
 * the inbox, so that a burst (a responder's ACK, then the application's reply) wakes the peer once instead of once
 * for its first datagram and again, the receiver having gone back to sleep, for the next. The record itself is in
 * the inbox at once: a receiver that polls sees it without waiting for the flush. Few at a time (usually one peer);
 * a full set sends its oldest now rather than grow, so it allocates nothing.
 */
final class PendingWakeups
{
    private static final int CAPACITY = 8;

    private final InetAddress[] peers = new InetAddress[CAPACITY];
    /** Entries held; written under the monitor, read without it for the usual empty case. */
    private volatile int size;

    /**
     * @param peer   a peer whose sleeping receiver the burst must wake.
     * @param sender sends a wake-up now, for a peer pushed out of a full set.
     */
    synchronized void add(final InetAddress peer, final Predicate<InetAddress> sender)
    {
        for (int i = 0; i < size; i++)
        {
            if (peers[i].equals(peer))
            {
                return;
            }
        }
        if (size == CAPACITY)
        {
            sender.test(peers[0]);
            System.arraycopy(peers, 1, peers, 0, CAPACITY - 1);
            peers[CAPACITY - 1] = peer;
            return;
        }
        peers[size] = peer;
        size = size + 1;
    }

    /**
     * Send the wake-ups owed and forget them.
     *
     * @param sender sends one.
     */
    void sendAll(final Predicate<InetAddress> sender)
    {
        if (size == 0)
        {
            return;
        }
        synchronized (this)
        {
            for (int i = 0; i < size; i++)
            {
                sender.test(peers[i]);
                peers[i] = null;
            }
            size = 0;
        }
    }
}
