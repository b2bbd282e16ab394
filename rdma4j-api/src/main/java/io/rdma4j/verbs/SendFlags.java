package io.rdma4j.verbs;

/**
 * Send work request flags ({@code enum ibv_send_flags}), as int bits because they are set on
 * every post.
 */
public final class SendFlags
{
    /** Wait for earlier RDMA READs and atomics to complete before starting. */
    public static final int FENCE = 1;
    /** Generate a completion when this request completes. */
    public static final int SIGNALED = 1 << 1;
    /** Set the solicited event bit: the peer's CQ armed for solicited events fires. */
    public static final int SOLICITED = 1 << 2;
    /** Copy the data at post time; the lkeys are not checked and the buffers can be reused at once. */
    public static final int INLINE = 1 << 3;
    /** Offload the IP checksum (not supported by the software device). */
    public static final int IP_CSUM = 1 << 4;

    static final int ALL = FENCE | SIGNALED | SOLICITED | INLINE | IP_CSUM;

    private SendFlags()
    {
    }

    /**
     * @param flags bits to check.
     * @return true if every bit is a known flag.
     */
    public static boolean valid(final int flags)
    {
        return (flags & ~ALL) == 0;
    }
}
