package io.rdma4j.rmcast.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The private data of a publisher's accept: everything a subscriber needs to repair by itself and to report
 * its position, so the publisher's CPU takes no further part (at most 196 bytes, the RC accept limit).
 *
 * @param sessionId     the publisher's session.
 * @param windowAddress the retransmit window's remote address.
 * @param windowRkey    its rkey (REMOTE_READ).
 * @param windowSlots   fragments it holds; fragment {@code s} is at slot {@code s % windowSlots}.
 * @param slotLength    bytes per slot (a frame header and the largest payload, aligned).
 * @param headAddress   the remote address of the head word: one past the newest fragment whose slot the
 *                      publisher has begun to write, read after a repair to tell a whole slot from an
 *                      overwritten one.
 * @param headRkey      its rkey (REMOTE_READ).
 * @param statusAddress the remote address of this member's status entry (position, liveness counter).
 * @param statusRkey    its rkey (REMOTE_WRITE).
 * @param startSequence the first fragment this member is to deliver (the head, or the window's oldest).
 * @param maxPayload    the largest payload of one fragment.
 */
public record RepairGrant(
    int sessionId, long windowAddress, int windowRkey, int windowSlots, int slotLength, long headAddress,
    int headRkey, long statusAddress, int statusRkey, long startSequence, int maxPayload)
{
    public static final int MAGIC = 0x524d4347;   // "RMCG"
    public static final int LENGTH = 4 + 4 + 8 + 4 + 4 + 4 + 8 + 4 + 8 + 4 + 8 + 4;

    public byte[] encode()
    {
        return ByteBuffer.allocate(LENGTH).order(ByteOrder.LITTLE_ENDIAN).putInt(MAGIC).putInt(sessionId)
            .putLong(windowAddress).putInt(windowRkey).putInt(windowSlots).putInt(slotLength).putLong(headAddress)
            .putInt(headRkey).putLong(statusAddress).putInt(statusRkey).putLong(startSequence).putInt(maxPayload)
            .array();
    }

    /**
     * @param data an accept's private data.
     * @return the grant, or null if the data is not one.
     */
    public static RepairGrant decode(final byte[] data)
    {
        if (data == null || data.length < LENGTH)
        {
            return null;
        }
        final ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt() != MAGIC)
        {
            return null;
        }
        return new RepairGrant(b.getInt(), b.getLong(), b.getInt(), b.getInt(), b.getInt(), b.getLong(), b.getInt(),
            b.getLong(), b.getInt(), b.getLong(), b.getInt());
    }
}
