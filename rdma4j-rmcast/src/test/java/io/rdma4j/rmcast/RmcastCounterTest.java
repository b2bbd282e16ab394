package io.rdma4j.rmcast;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The ids {@code rdma4j stat}'s readers know reliable multicast's counters by, as published: one changed, reused
 * or given to another counter would have a monitoring agent read one counter as another. A new counter takes the
 * next free id of its range, and this list grows by its line.
 */
class RmcastCounterTest
{
    private static final List<String> PUBLISHED = List.of(
        "1001 fragments_sent", "1002 messages_sent", "1003 bytes_sent", "1004 heartbeats_sent",
        "1005 back_pressured", "1006 not_connected", "1007 members_joined", "1008 members_left",
        "1009 members_timed_out", "1010 members_dropped", "1011 repair_requests_refused",
        "1090 position", "1091 members",
        "1101 fragments_received", "1102 messages_delivered", "1103 bytes_delivered", "1104 duplicates",
        "1105 gaps", "1106 repair_reads", "1107 fragments_repaired", "1108 loss_events", "1109 fragments_lost",
        "1110 beyond_window", "1111 fragments_skipped", "1112 frames_without_image", "1113 malformed_frames",
        "1114 status_writes", "1115 images_available", "1116 images_unavailable", "1117 receive_errors",
        "1118 repair_connect_failures",
        "1190 images", "1191 max_lag");

    @Test
    void shouldKeepEveryPublishedIdAndName()
    {
        final Stream<String> counters = Arrays.stream(RmcastCounter.values()).map(c -> c.id() + " " + c.label());
        final Stream<String> gauges = Stream.of(RmcastStat.PUBLICATION_POSITION_ID + " position",
            RmcastStat.PUBLICATION_MEMBERS_ID + " members", RmcastStat.SUBSCRIPTION_IMAGES_ID + " images",
            RmcastStat.SUBSCRIPTION_MAX_LAG_ID + " max_lag");
        assertEquals(PUBLISHED.stream().sorted().toList(), Stream.concat(counters, gauges).sorted().toList());
    }
}
