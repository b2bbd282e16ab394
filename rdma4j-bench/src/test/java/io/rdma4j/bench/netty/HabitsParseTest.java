package io.rdma4j.bench.netty;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.regex.Matcher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * bench-habits reads the lines its parts print: a burst's line of {@link MulticastBurst} and the rows of
 * {@link io.rdma4j.bench.connect.FirstConnect}'s table, as those print them (lines taken from a run).
 */
class HabitsParseTest
{
    @Test
    void aBurstLineGivesEachReceiverThenTheSender()
    {
        final List<int[]> members = Habits.burstLine("run 1 burst 3: sender [sent 5000 in 2.25 s failed 0 own 5000 "
            + "dropped 0 cpu 230 ms] [received 5000 dropped 0 cpu 170 ms] [received 4920 dropped 80 cpu 180 ms] "
            + "[received 3258 dropped 1742 cpu 220 ms] load 21.62");
        assertEquals(4, members.size());
        assertArrayEquals(new int[] {5000, 0}, members.get(0));
        assertArrayEquals(new int[] {4920, 80}, members.get(1));
        assertArrayEquals(new int[] {3258, 1742}, members.get(2));
        assertArrayEquals(new int[] {5000, 0}, members.get(3), "the sender's own copies, last");
    }

    @Test
    void aUdpBurstLineHasNoDropCountsAndOtherLinesAreNoBursts()
    {
        final List<int[]> members = Habits.burstLine("run 1 burst 1: sender [sent 1000 in 3.83 s failed 0 own 116 "
            + "dropped -1 cpu 690 ms] [received 0 dropped -1 cpu 460 ms] [received 92 dropped -1 cpu 620 ms] "
            + "[received 0 dropped -1 cpu 580 ms] load 19.25");
        assertArrayEquals(new int[] {92, -1}, members.get(1));
        assertArrayEquals(new int[] {116, -1}, members.get(3));
        assertNull(Habits.burstLine("nio: 3 receivers, 1000 x 1024 B at 550/s, sender joined; load 17.95"));
    }

    @Test
    void firstConnectsRowsAreFoundWithTheirMedianAndSpread()
    {
        final List<Matcher> rows = Habits.connectRows(String.join("\n",
            "row                                  outcome            main->outcome ms       x jvm->main ms",
            "tcp socket listener                  established           154 [137-678]                  946",
            "netty rdma4j no-device               refused          13184 [8858-18906]     3.4         1134",
            "rdma4j cm listener                   providers 1160 event_channel 71 create_id 6"));
        assertEquals(2, rows.size());
        assertEquals("tcp socket", rows.get(0).group(1));
        assertEquals("listener", rows.get(0).group(2));
        assertEquals("154", rows.get(0).group(4));
        assertEquals("netty rdma4j", rows.get(1).group(1));
        assertEquals("no-device", rows.get(1).group(2));
        assertEquals("refused", rows.get(1).group(3));
        assertEquals("8858", rows.get(1).group(5));
        assertEquals("18906", rows.get(1).group(6));
    }
}
