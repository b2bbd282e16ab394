package io.rdma4j.soft.cm;

/**
 * A task the {@link ConnectionManager}'s thread runs when its clock reaches the deadline: a
 * retransmission, the end of an MRA's wait or of a timewait. Ordered by deadline, then by when it
 * was scheduled.
 */
final class CmTimer implements Comparable<CmTimer>
{
    final long deadline;
    final long sequence;
    final Runnable task;

    CmTimer(final long deadline, final long sequence, final Runnable task)
    {
        this.deadline = deadline;
        this.sequence = sequence;
        this.task = task;
    }

    @Override
    public int compareTo(final CmTimer other)
    {
        final int byDeadline = Long.compare(deadline - other.deadline, 0);
        return byDeadline != 0 ? byDeadline : Long.compare(sequence, other.sequence);
    }
}
