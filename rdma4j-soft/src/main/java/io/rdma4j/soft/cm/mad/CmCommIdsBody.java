package io.rdma4j.soft.cm.mad;

/**
 * Flyweight over the body of a CM message that opens with both ends' communication IDs: every connection message
 * but the REQ, which the active side sends before the passive side has an ID. The receiver finds its connection by
 * the Remote Communication ID, its own.
 *
 * @param <B> the concrete message.
 */
public abstract class CmCommIdsBody<B extends CmCommIdsBody<B>> extends CmBody<B>
{
    /** Offset of the Local Communication ID. */
    public static final int LOCAL_COMM_ID_OFFSET = 0;
    /** Offset of the Remote Communication ID. */
    public static final int REMOTE_COMM_ID_OFFSET = 4;

    CmCommIdsBody(final int privateDataAt, final int privateDataLength)
    {
        super(privateDataAt, privateDataLength);
    }

    /** @return the Local Communication ID: the sender's handle for the connection, 0 in a REJ from one without. */
    public int localCommId()
    {
        return u32(LOCAL_COMM_ID_OFFSET);
    }

    /**
     * @param localCommId the Local Communication ID.
     * @return this.
     */
    public B localCommId(final int localCommId)
    {
        return u32(LOCAL_COMM_ID_OFFSET, localCommId);
    }

    /** @return the Remote Communication ID: the receiver's own handle, by which it finds the connection. */
    public int remoteCommId()
    {
        return u32(REMOTE_COMM_ID_OFFSET);
    }

    /**
     * @param remoteCommId the Remote Communication ID.
     * @return this.
     */
    public B remoteCommId(final int remoteCommId)
    {
        return u32(REMOTE_COMM_ID_OFFSET, remoteCommId);
    }
}
