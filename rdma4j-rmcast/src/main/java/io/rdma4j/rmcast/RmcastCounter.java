package io.rdma4j.rmcast;

/**
 * The counters of publications and subscriptions, named as rxe names its own (snake_case, what was counted).
 * A "fragment" is one window slot, one datagram: a piece of a long message, or several small messages packed.
 */
public enum RmcastCounter
{
    FRAGMENTS_SENT("fragments_sent"),
    MESSAGES_SENT("messages_sent"),
    BYTES_SENT("bytes_sent"),
    HEARTBEATS_SENT("heartbeats_sent"),
    BACK_PRESSURED("back_pressured"),
    NOT_CONNECTED("not_connected"),
    MEMBERS_JOINED("members_joined"),
    MEMBERS_LEFT("members_left"),
    MEMBERS_TIMED_OUT("members_timed_out"),
    MEMBERS_DROPPED("members_dropped"),
    REPAIR_REQUESTS_REFUSED("repair_requests_refused"),

    FRAGMENTS_RECEIVED("fragments_received"),
    MESSAGES_DELIVERED("messages_delivered"),
    BYTES_DELIVERED("bytes_delivered"),
    DUPLICATES("duplicates"),
    GAPS("gaps"),
    REPAIR_READS("repair_reads"),
    FRAGMENTS_REPAIRED("fragments_repaired"),
    LOSS_EVENTS("loss_events"),
    FRAGMENTS_LOST("fragments_lost"),
    BEYOND_WINDOW("beyond_window"),
    FRAGMENTS_SKIPPED("fragments_skipped"),
    FRAMES_WITHOUT_IMAGE("frames_without_image"),
    MALFORMED_FRAMES("malformed_frames"),
    STATUS_WRITES("status_writes"),
    IMAGES_AVAILABLE("images_available"),
    IMAGES_UNAVAILABLE("images_unavailable"),
    /** Receive completions of the group's QP that failed (the datagram is lost to this member). */
    RECEIVE_ERRORS("receive_errors"),
    /** Repair connections to a publisher that failed before they were granted (the session stays unseen). */
    REPAIR_CONNECT_FAILURES("repair_connect_failures");

    private final String label;

    RmcastCounter(final String label)
    {
        this.label = label;
    }

    /**
     * @return its name in {@code counters()} maps and tools.
     */
    public String label()
    {
        return label;
    }
}
