package io.rdma4j.cm;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

/**
 * {@link EventChannel#expect} did not get the event it waited for: another one came (it is
 * acknowledged already; its type, status and private data are kept here), or none came in time.
 */
public final class CmEventException extends RdmaException
{
    private static final long serialVersionUID = 1L;

    private final CmEventType expected;
    private final CmEventType received;
    private final int status;
    private final transient byte[] privateData;

    CmEventException(final Errno errno, final String message, final CmEventType expected,
        final CmEventType received, final int status, final byte[] privateData)
    {
        super(errno, message);
        this.expected = expected;
        this.received = received;
        this.status = status;
        this.privateData = privateData;
    }

    /**
     * @return the event waited for.
     */
    public CmEventType expected()
    {
        return expected;
    }

    /**
     * @return the event that came instead, or null if none came in time.
     */
    public CmEventType received()
    {
        return received;
    }

    /**
     * @return that event's status (see {@link CmStatus}), 0 if none came.
     */
    public int status()
    {
        return status;
    }

    /**
     * @return that event's private data (a REJECTED event's REJ data), or null.
     */
    public byte[] privateData()
    {
        return privateData;
    }
}
