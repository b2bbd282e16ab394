package io.rdma4j.soft.engine;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * The spin budget's policy: spin after work, never when idle or with no budget, and back off from spins that run
 * out, exponentially up to {@link WaitSpin#MAX_SKIPPED} waits, with each spin that pays taking one step back.
 */
class WaitSpinTest
{
    private static final long BUDGET = 20_000;

    @Test
    void spinsOnlyAfterAWaitThatFoundWorkAndNeverWithoutABudget()
    {
        final WaitSpin spin = new WaitSpin(BUDGET, new Counters());
        assertEquals(0, spin.begin(false), "idle: blocks at once");
        assertEquals(BUDGET, spin.begin(true));
        final Counters noneCounters = new Counters();
        final WaitSpin none = new WaitSpin(0, noneCounters);
        for (int i = 0; i < 100; i++)
        {
            assertEquals(0, none.begin(true));
            assertEquals(0, none.begin(false));
        }
        assertEquals(0, noneCounters.get(SoftCounter.WAIT_SPINS));
        assertThrows(IllegalArgumentException.class, () -> new WaitSpin(-1, new Counters()));
    }

    @Test
    void spinsThatPayKeepItSpinningOnEveryWait()
    {
        final Counters counters = new Counters();
        final WaitSpin spin = new WaitSpin(BUDGET, counters);
        for (int i = 0; i < 1000; i++)
        {
            assertEquals(BUDGET, spin.begin(true), "wait " + i);
            spin.spun(true);
        }
        assertEquals(1000, counters.get(SoftCounter.WAIT_SPINS));
        assertEquals(1000, counters.get(SoftCounter.WAIT_SPINS_PAID));
    }

    @Test
    void spinsThatRunOutBackOffExponentiallyToOneWaitInSixtyFive()
    {
        final Counters counters = new Counters();
        final WaitSpin spin = new WaitSpin(BUDGET, counters);
        // waits between spins, every spin running out: 2, 4, 8, 16, 32, then 64 for good
        final int[] expected = {2, 4, 8, 16, 32, 64, 64, 64};
        assertEquals(BUDGET, spin.begin(true));
        spin.spun(false);
        for (final int gap : expected)
        {
            assertEquals(gap, blockedBeforeNextSpin(spin), "waits that blocked at once");
            spin.spun(false);
        }
        assertEquals(1 + expected.length, counters.get(SoftCounter.WAIT_SPINS));
        assertEquals(0, counters.get(SoftCounter.WAIT_SPINS_PAID));
        // the share of waits that spun in a long run of spins that all ran out
        int spun = 0;
        for (int i = 0; i < 65 * 100; i++)
        {
            if (spin.begin(true) > 0)
            {
                spun++;
                spin.spun(false);
            }
        }
        assertEquals(100, spun);
    }

    @Test
    void eachSpinThatPaysTakesOneStepOfTheBackOffBack()
    {
        final WaitSpin spin = new WaitSpin(BUDGET, new Counters());
        for (int i = 0; i < 3; i++)
        {
            blockedBeforeNextSpin(spin);
            spin.spun(false);
        }
        // three ran out: the next spin comes after 8 waits; then two that pay leave one failure: a run-out spin
        // after them is followed by 4 blocked waits (two failures), not 16
        assertEquals(8, blockedBeforeNextSpin(spin));
        spin.spun(true);
        assertEquals(0, blockedBeforeNextSpin(spin), "a paid spin skips nothing");
        spin.spun(true);
        assertEquals(0, blockedBeforeNextSpin(spin));
        spin.spun(false);
        assertEquals(4, blockedBeforeNextSpin(spin));
    }

    @Test
    void anIdleWaitDoesNotUseUpTheBackOff()
    {
        final WaitSpin spin = new WaitSpin(BUDGET, new Counters());
        spin.begin(true);
        spin.spun(false);
        // idle waits block anyway; the two waits after work that the failure skips are still owed
        for (int i = 0; i < 10; i++)
        {
            assertEquals(0, spin.begin(false));
        }
        assertEquals(2, blockedBeforeNextSpin(spin));
    }

    /**
     * @return how many waits after work blocked at once before one spun (that one's {@code spun} is the caller's).
     */
    private static int blockedBeforeNextSpin(final WaitSpin spin)
    {
        int blocked = 0;
        while (spin.begin(true) == 0)
        {
            blocked++;
        }
        return blocked;
    }
}
