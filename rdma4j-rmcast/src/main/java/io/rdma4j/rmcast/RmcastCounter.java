package io.rdma4j.rmcast;

/**
 * The counters of publications and subscriptions, named as rxe names its own (snake_case, what was counted).
 * A "fragment" is one window slot, one datagram: a piece of a long message, or several small messages packed.
 * Each has an id that no other counter of rdma4j's has or will have (a publication's from 1001, a subscription's
 * from 1101; the soft device's are below 1000), by which {@code rdma4j stat}'s readers know it.
 */
public enum RmcastCounter
{
    FRAGMENTS_SENT(1001, "fragments_sent"),
    MESSAGES_SENT(1002, "messages_sent"),
    BYTES_SENT(1003, "bytes_sent"),
    HEARTBEATS_SENT(1004, "heartbeats_sent"),
    BACK_PRESSURED(1005, "back_pressured"),
    NOT_CONNECTED(1006, "not_connected"),
    MEMBERS_JOINED(1007, "members_joined"),
    MEMBERS_LEFT(1008, "members_left"),
    MEMBERS_TIMED_OUT(1009, "members_timed_out"),
    MEMBERS_DROPPED(1010, "members_dropped"),
    REPAIR_REQUESTS_REFUSED(1011, "repair_requests_refused"),

    FRAGMENTS_RECEIVED(1101, "fragments_received"),
    MESSAGES_DELIVERED(1102, "messages_delivered"),
    BYTES_DELIVERED(1103, "bytes_delivered"),
    DUPLICATES(1104, "duplicates"),
    GAPS(1105, "gaps"),
    REPAIR_READS(1106, "repair_reads"),
    FRAGMENTS_REPAIRED(1107, "fragments_repaired"),
    LOSS_EVENTS(1108, "loss_events"),
    FRAGMENTS_LOST(1109, "fragments_lost"),
    BEYOND_WINDOW(1110, "beyond_window"),
    FRAGMENTS_SKIPPED(1111, "fragments_skipped"),
    FRAMES_WITHOUT_IMAGE(1112, "frames_without_image"),
    MALFORMED_FRAMES(1113, "malformed_frames"),
    STATUS_WRITES(1114, "status_writes"),
    IMAGES_AVAILABLE(1115, "images_available"),
    IMAGES_UNAVAILABLE(1116, "images_unavailable"),
    /** Receive completions of the group's QP that failed (the datagram is lost to this member). */
    RECEIVE_ERRORS(1117, "receive_errors"),
    /** Repair connections to a publisher that failed before they were granted (the session stays unseen). */
    REPAIR_CONNECT_FAILURES(1118, "repair_connect_failures");

    private final int id;
    private final String label;

    RmcastCounter(final int id, final String label)
    {
        this.id = id;
        this.label = label;
    }

    /**
     * @return its id in the counters files, never another counter's.
     */
    public int id()
    {
        return id;
    }

    /**
     * @return its name in {@code counters()} maps and tools.
     */
    public String label()
    {
        return label;
    }
}
