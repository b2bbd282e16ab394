package io.rdma4j.tools;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReceiveStatsTest
{
    @Test
    void shouldCountDuplicatesAndMissingPerSender()
    {
        final ReceiveStats stats = new ReceiveStats();
        stats.record(17, 0, 10);
        stats.record(17, 1, 20);
        stats.record(17, 1, 30);
        stats.record(17, 3, 40);

        assertEquals(4, stats.received());
        assertEquals(3, stats.unique());
        assertEquals(1, stats.duplicates());
        assertEquals(2, stats.missing(5));
    }

    @Test
    void shouldReportNearestRankPercentiles()
    {
        final ReceiveStats stats = new ReceiveStats();
        for (int i = 1; i <= 100; i++)
        {
            stats.record(1, i - 1, i);
        }

        assertEquals(50, stats.percentile(50));
        assertEquals(90, stats.percentile(90));
        assertEquals(99, stats.percentile(99));
        assertEquals(100, stats.percentile(100));
    }

    @Test
    void shouldReportEverythingMissingWhenNothingCame()
    {
        final ReceiveStats stats = new ReceiveStats();

        assertEquals(10, stats.missing(10));
        assertEquals(-1, stats.percentile(50));
        assertTrue(stats.summary(0, 10).contains("received=0 unique=0 duplicates=0 missing=10"));
    }

    @Test
    void shouldCountPlainMessagesWithoutAnalysis()
    {
        final ReceiveStats stats = new ReceiveStats();
        stats.recordPlain();
        stats.recordPlain();
        stats.recordError();

        assertEquals(2, stats.received());
        assertEquals(2, stats.plain());
        assertFalse(stats.hasHeaders());
        assertEquals("mckey: summary node=3 received=2 errors=1", stats.summary(3, 2));
    }
}
