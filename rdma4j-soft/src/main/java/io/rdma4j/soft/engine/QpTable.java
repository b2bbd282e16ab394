package io.rdma4j.soft.engine;

import io.rdma4j.soft.transport.TransportQp;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.security.SecureRandom;
import java.util.function.IntFunction;
import java.util.random.RandomGenerator;

/**
 * The device's QPs by number. A QP number is drawn at random from the 24-bit space, never 0 (QP0),
 * 1 (QP1, the GSI) or 0xFFFFFF (the multicast QPN), and never one in use: a host that is not a QP's
 * peer cannot learn it by counting, so it has to see the peer's traffic to aim a packet at it.
 * <p>
 * The table is an open-addressed hash (linear probing) in a power-of-two array at most half full,
 * replaced as a whole on every change, so the receive path looks a QP up in O(1) with one volatile
 * read, no lock and no allocation. Changes (create, destroy) are rare and take the table's lock.
 */
public final class QpTable
{
    /** The largest QPN; 0xFFFFFF itself is the multicast QPN. */
    public static final int MAX_QPN = 0xFFFFFE;
    private static final int FIRST_RANDOM_QPN = 2;
    private static final int MIN_SLOTS = 64;

    private final int capacity;
    private final RandomGenerator random;
    private volatile TransportQp[] slots = new TransportQp[MIN_SLOTS];
    private int count;

    /**
     * @param capacity max_qp.
     */
    public QpTable(final int capacity)
    {
        this(capacity, new SecureRandom());
    }

    /**
     * @param capacity max_qp.
     * @param random   where QP numbers come from.
     */
    public QpTable(final int capacity, final RandomGenerator random)
    {
        this.capacity = capacity;
        this.random = random;
    }

    /**
     * Choose a free QP number and add the QP {@code maker} builds for it.
     *
     * @param maker builds the QP once its number is chosen; nothing is added if it throws.
     * @return the QP.
     */
    public synchronized <Q extends TransportQp> Q add(final IntFunction<Q> maker)
    {
        if (count >= capacity)
        {
            throw new RdmaException(Errno.ENOMEM, "the device has " + count + " QPs, max_qp is " + capacity);
        }
        int qpn;
        do
        {
            qpn = random.nextInt(FIRST_RANDOM_QPN, MAX_QPN + 1);
        }
        while (find(slots, qpn) != null);
        final Q qp = maker.apply(qpn);
        final int needed = Math.max(MIN_SLOTS, Integer.highestOneBit(Math.max(1, count + 1)) << 2);
        final TransportQp[] next = rehash(slots, Math.max(needed, slots.length), null);
        insert(next, qp);
        slots = next;
        count++;
        return qp;
    }

    /**
     * @param qp the QP to forget; nothing happens if it is not in the table.
     */
    public synchronized void remove(final TransportQp qp)
    {
        if (find(slots, qp.qpNum()) != qp)
        {
            return;
        }
        slots = rehash(slots, slots.length, qp);
        count--;
    }

    /**
     * @param qpn a QP number from a packet.
     * @return the QP, or null.
     */
    public TransportQp get(final int qpn)
    {
        return find(slots, qpn);
    }

    /**
     * @return the slots now, some null, for a caller that visits every QP (timers); never modified.
     */
    public TransportQp[] snapshot()
    {
        return slots;
    }

    /**
     * @return QPs in the table.
     */
    public synchronized int count()
    {
        return count;
    }

    private static TransportQp find(final TransportQp[] table, final int qpn)
    {
        final int mask = table.length - 1;
        for (int i = hash(qpn) & mask; ; i = (i + 1) & mask)
        {
            final TransportQp qp = table[i];
            if (qp == null || qp.qpNum() == qpn)
            {
                return qp;
            }
        }
    }

    private static TransportQp[] rehash(final TransportQp[] table, final int length, final TransportQp without)
    {
        final TransportQp[] next = new TransportQp[length];
        for (final TransportQp qp : table)
        {
            if (qp != null && qp != without)
            {
                insert(next, qp);
            }
        }
        return next;
    }

    private static void insert(final TransportQp[] table, final TransportQp qp)
    {
        final int mask = table.length - 1;
        int i = hash(qp.qpNum()) & mask;
        while (table[i] != null)
        {
            i = (i + 1) & mask;
        }
        table[i] = qp;
    }

    private static int hash(final int qpn)
    {
        // the numbers are random already; the multiply spreads a caller's chosen ones too
        return (qpn * 0x9E3779B9) >>> 8;
    }
}
