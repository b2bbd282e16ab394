package io.rdma4j.rmcast.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The private data of a subscriber's connect to a publisher's repair listener (at most 56 bytes, the RC
 * connect limit).
 *
 * @param sessionId the session the subscriber saw on the group: a restarted publisher on the same port has
 *                  another and refuses the request, so no subscriber repairs from the wrong window.
 * @param replay    true to start at the oldest fragment the window still holds, false at the live head.
 */
public record RepairRequest(int sessionId, boolean replay)
{
    /** Tells a repair request from a stranger's connect. */
    public static final int MAGIC = 0x524d4331;   // "RMC1"
    public static final int LENGTH = 12;

    public byte[] encode()
    {
        return ByteBuffer.allocate(LENGTH).order(ByteOrder.LITTLE_ENDIAN).putInt(MAGIC).putInt(sessionId)
            .putInt(replay ? 1 : 0).array();
    }

    /**
     * @param data a connect request's private data (the CM may pad it).
     * @return the request, or null if the data is not one.
     */
    public static RepairRequest decode(final byte[] data)
    {
        if (data == null || data.length < LENGTH)
        {
            return null;
        }
        final ByteBuffer buffer = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        if (buffer.getInt() != MAGIC)
        {
            return null;
        }
        return new RepairRequest(buffer.getInt(), buffer.getInt() != 0);
    }
}
