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
     * @param expected the event a flow waited for.
     * @param event    the one that came instead; not acknowledged here.
     * @return the failure: the errno the event's status stands for (ECONNREFUSED for REJECTED), with the event's
     *         type, status, decoded status and private data.
     */
    public static CmEventException unexpected(final CmEventType expected, final CmEvent event)
    {
        final CmEventType received = event.type();
        final int status = event.status();
        final byte[] privateData = event.connParam() == null ? null : event.connParam().privateData();
        return new CmEventException(CmStatus.errno(received, status), "expected " + expected.description() +
            ", got " + received.description() + " with status " + CmStatus.describe(received, status), expected,
            received, status, privateData);
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
