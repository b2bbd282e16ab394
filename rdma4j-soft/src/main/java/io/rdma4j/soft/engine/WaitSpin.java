package io.rdma4j.soft.engine;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;

/**
 * How long a waiter that holds the receive role polls the link before it blocks: spin, then block, by a budget
 * that must keep paying for itself.
 * <p>
 * A spin pays when the awaited datagram comes within it: the waiter then skips the sleep and the wake-up, which on
 * a virtual machine's idle vCPU cost more than the rest of the exchange (2026-12-02, 2 EPYC vCPUs: a same-host RC
 * {@code perf send_lat -e} went from 18.7 us to 1.4 us with a 20 us spin). It is lost when the budget runs out
 * first: a peer that answers slowly, or that the spinner keeps off the core it needs (two shared cores with a build
 * beside: 29 us against 11 us unspun). So a spin that ran out counts against spinning (and so does one satisfied
 * only long after its budget: its thread lost the core meanwhile, which its caller judges): after {@code f} of them,
 * unrepaid, the next {@code 2^f} waits (at most {@value #MAX_SKIPPED}) block at once, and each spin that pays takes
 * one back. A waiter whose replies keep coming inside the budget spins every time; one whose replies do not spins on
 * about one wait in {@value #MAX_SKIPPED}, a few per cent of a core at the most. Nothing spins after a wait that
 * found nothing (idle), nor with a budget of 0.
 * <p>
 * Used by the role holder only (the receive lock orders its uses): no synchronisation, and the device's
 * {@code wait_spins} and {@code wait_spins_paid} counters are bumped as owned ones.
 */
final class WaitSpin
{
    /** The most waits in a row that block at once after spins that ran out. */
    static final int MAX_SKIPPED = 64;
    private static final int MAX_FAILURES = Integer.numberOfTrailingZeros(MAX_SKIPPED);

    private final long budgetNs;
    /** Spins that ran out, less those that paid since: 0 to {@link #MAX_FAILURES}. */
    private int failures;
    /** Waits still to block at once before the next spin. */
    private int skip;
    private final Counters counters;

    /**
     * @param budgetNs the longest spin; 0 never spins.
     * @param counters the device's, for {@code wait_spins} and {@code wait_spins_paid}.
     */
    WaitSpin(final long budgetNs, final Counters counters)
    {
        this.counters = counters;
        if (budgetNs < 0)
        {
            throw new IllegalArgumentException("a spin budget of " + budgetNs + " ns: 0 or more");
        }
        this.budgetNs = budgetNs;
    }

    /**
     * A wait begins.
     *
     * @param lastFoundWork whether the waiter's last wait was satisfied (it is busy, so the next event is likely
     *                      near).
     * @return how long this wait spins before it blocks: the budget, or 0.
     */
    long begin(final boolean lastFoundWork)
    {
        if (budgetNs == 0 || !lastFoundWork)
        {
            return 0;
        }
        if (skip > 0)
        {
            skip--;
            return 0;
        }
        counters.incrementOwned(SoftCounter.WAIT_SPINS);
        return budgetNs;
    }

    /**
     * A wait that spun ({@link #begin} returned the budget) ended its spin.
     *
     * @param paid true if the wait was satisfied within the spin, false if the spin ran out and the waiter went on
     *             to block.
     */
    void spun(final boolean paid)
    {
        if (paid)
        {
            counters.incrementOwned(SoftCounter.WAIT_SPINS_PAID);
            if (failures > 0)
            {
                failures--;
            }
        }
        else
        {
            if (failures < MAX_FAILURES)
            {
                failures++;
            }
            skip = 1 << failures;
        }
    }
}
