package io.rdma4j.soft;

import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.WorkCompletion;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Small helpers for tests.
 */
final class TestVerbs
{
    private TestVerbs()
    {
    }

    /**
     * Poll until {@code count} completions arrived or the deadline passed.
     *
     * @param cq        the CQ.
     * @param count     how many to wait for.
     * @param timeoutMs the deadline.
     * @return the completions (fewer than count if the deadline passed).
     */
    static List<WorkCompletion> pollFor(final CompletionQueue cq, final int count, final long timeoutMs)
    {
        final List<WorkCompletion> result = new ArrayList<>();
        final WorkCompletion[] wcs = WorkCompletion.array(16);
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (result.size() < count && System.nanoTime() < deadline)
        {
            final int n = cq.poll(wcs, Math.min(16, count - result.size()));
            for (int i = 0; i < n; i++)
            {
                result.add(new WorkCompletion().copyFrom(wcs[i]));
            }
            if (n == 0)
            {
                Thread.onSpinWait();
            }
        }
        return result;
    }

    /**
     * Wait until a counter reaches a value.
     *
     * @param value  reads the counter.
     * @param target the value to reach.
     */
    static void awaitAtLeast(final LongSupplier value, final long target)
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (value.getAsLong() < target)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("counter stayed at " + value.getAsLong() + ", expected " + target);
            }
            Thread.onSpinWait();
        }
    }

    /**
     * A multicast group of this test JVM's own (see {@link TestNet}), so that two test runs on one machine
     * (two builds) never hear each other's groups over the UDP link.
     *
     * @param n 1..254, which of this JVM's groups.
     * @return the group's GID.
     */
    static Gid group(final int n)
    {
        return Gid.parse(TestNet.group(n));
    }
}
