package io.rdma4j.soft.engine;

import io.rdma4j.soft.transport.BatchEndWork;

import java.util.Arrays;

/**
 * The transports that owe work once the batch of datagrams being received is handled, in the order they
 * asked. Each asks at most once per batch (it keeps its own flag), so the list holds at most one entry per
 * QP; it grows, rarely, to the number of QPs receiving at once and then stays. Used under the engine's
 * receive lock only.
 */
final class BatchEndList
{
    private BatchEndWork[] owed = new BatchEndWork[16];
    private int count;

    void add(final BatchEndWork work)
    {
        if (count == owed.length)
        {
            owed = Arrays.copyOf(owed, count * 2);
        }
        owed[count++] = work;
    }

    /**
     * Run what is owed. Work that asks again while it runs (responses still owed) is kept for the next run.
     *
     * @return how many ran: 0 means nothing was owed.
     */
    int run()
    {
        final int running = count;
        for (int i = 0; i < running; i++)
        {
            final BatchEndWork work = owed[i];
            owed[i] = null;
            work.onBatchEnd();
        }
        // what asked during the run sits after the entries that ran (which the loop cleared): move it to the front
        final int again = count - running;
        if (again > 0)
        {
            System.arraycopy(owed, running, owed, 0, again);
            Arrays.fill(owed, again, count, null);
        }
        count = again;
        return running;
    }
}
