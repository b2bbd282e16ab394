package io.rdma4j.soft.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The device's earliest timer deadline, which a posting thread lowers while the progress thread runs every
 * QP's timers: a run's result never hides a deadline armed during the run (the device-level race is
 * {@code DeviceTimersTest}'s).
 */
class TimerDeadlineTest
{
    private static final long NONE = TimerDeadline.NONE;

    @Test
    void shouldKeepTheEarliestDeadlineWhateverTheOrderOfArming()
    {
        final TimerDeadline timers = new TimerDeadline();
        assertEquals(NONE, timers.get());
        assertTrue(timers.lower(300));
        assertTrue(timers.lower(100));
        assertFalse(timers.lower(200), "a later deadline does not replace an earlier one");
        assertEquals(100, timers.get());
    }

    @Test
    void shouldHoldWhatTheRunFoundOrAnEarlierDeadlineArmedDuringIt()
    {
        final TimerDeadline timers = new TimerDeadline();
        timers.lower(100);
        timers.runBegins();
        timers.runEnded(500);
        assertEquals(500, timers.get(), "the run's deadline replaces the one it ran");

        timers.runBegins();
        timers.lower(700);
        timers.runEnded(NONE);
        assertEquals(700, timers.get(), "armed during a run that found none");

        timers.runBegins();
        timers.lower(900);
        timers.runEnded(800);
        assertEquals(800, timers.get(), "the earlier of the two");
    }
}
