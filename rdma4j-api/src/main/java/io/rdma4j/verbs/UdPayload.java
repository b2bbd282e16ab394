package io.rdma4j.verbs;

import java.lang.foreign.MemorySegment;

/**
 * The data of a UD receive. Every UD receive starts with a 40-byte global route header slot that the
 * device fills ({@link ReplyAddress#GRH_BYTES}); the sender's bytes follow it, and the completion's
 * byte length counts both. This is the arithmetic every UD receiver otherwise writes by hand.
 */
public final class UdPayload
{
    private UdPayload()
    {
    }

    /**
     * @param receiveBuffer the memory the receive work request pointed at (its first SGE's start).
     * @param wc            that receive's successful completion.
     * @return the sender's bytes: {@code wc.byteLen() - 40} bytes after the GRH slot, a slice of the
     *         buffer (no copy).
     * @throws RdmaException EINVAL if the completion is not of a successful receive of at least the
     *                       GRH, or the buffer is shorter than the completion says was written.
     */
    public static MemorySegment of(final MemorySegment receiveBuffer, final WorkCompletion wc)
    {
        RdmaException.check(wc.isSuccess() && (wc.opcode() == WcOpcode.RECV || wc.opcode() == WcOpcode.RECV_RDMA_WITH_IMM),
            Errno.EINVAL, "not a successful receive completion: " + wc);
        final int length = wc.byteLen() - ReplyAddress.GRH_BYTES;
        RdmaException.check(length >= 0, Errno.EINVAL, "byte_len " + wc.byteLen() + " is shorter than the " +
            ReplyAddress.GRH_BYTES + "-byte GRH every UD receive starts with: is this a UD completion?");
        RdmaException.check(receiveBuffer.byteSize() >= wc.byteLen(), Errno.EINVAL, "the buffer holds " +
            receiveBuffer.byteSize() + " bytes but the completion wrote " + wc.byteLen());
        return receiveBuffer.asSlice(ReplyAddress.GRH_BYTES, length);
    }
}
