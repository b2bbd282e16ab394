package io.rdma4j.cm;

import java.net.InetSocketAddress;

/**
 * A connection-manager event ({@code struct rdma_cm_event}). Every event taken from the channel
 * must be acknowledged exactly once with {@link #ack()}; an id cannot be destroyed while it has
 * events not acknowledged. Taking it in try-with-resources acknowledges it however the block ends:
 * <pre>{@code
 * try (CmEvent event = channel.getEvent(1, TimeUnit.SECONDS))
 * {
 *     handle(event);
 * }
 * }</pre>
 */
public interface CmEvent extends AutoCloseable
{
    /**
     * @return what happened.
     */
    CmEventType type();

    /**
     * @return the id it concerns; for CONNECT_REQUEST a new id for the connection.
     */
    CmId id();

    /**
     * @return for CONNECT_REQUEST, the listening id; otherwise null.
     */
    CmId listenId();

    /**
     * @return 0 or a negative errno / positive reject reason, as librdmacm reports.
     * @see #statusDescription()
     */
    int status();

    /**
     * @return the status in words: {@code "ok"}, a reject reason's name and meaning for REJECTED, an
     *         errno's name otherwise (see {@link CmStatus}).
     */
    default String statusDescription()
    {
        return CmStatus.describe(type(), status());
    }

    /**
     * @return connection parameters (RC events), or null.
     */
    ConnParam connParam();

    /**
     * @return UD parameters (MULTICAST_JOIN, SIDR events), or null.
     */
    UdParam udParam();

    /**
     * @return for multicast events, the context given to the join; otherwise null.
     */
    Object joinContext();

    /**
     * @return for multicast events, the group address; otherwise null.
     */
    InetSocketAddress multicastAddress();

    /**
     * Acknowledge and free the event ({@code rdma_ack_cm_event}).
     *
     * @throws io.rdma4j.verbs.RdmaException EINVAL if acknowledged already.
     */
    void ack();

    /**
     * Acknowledge the event unless it is acknowledged already: unlike {@link #ack()}, calling it
     * again does nothing, so that try-with-resources can always call it.
     */
    @Override
    default void close()
    {
        try
        {
            ack();
        }
        catch (final io.rdma4j.verbs.RdmaException ex)
        {
            // ack refuses a second acknowledgement with EINVAL: closing twice, or after ack, is fine
            if (ex.errno() != io.rdma4j.verbs.Errno.EINVAL)
            {
                throw ex;
            }
        }
    }
}
