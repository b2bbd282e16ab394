package io.rdma4j.soft;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.RdmaException;

/**
 * The checks of {@code ibv_create_qp} against the device's limits, and the capabilities granted:
 * each refusal is EINVAL with a sentence naming the attribute and its limit.
 */
final class QpCreation
{
    private QpCreation()
    {
    }

    /**
     * @param init   what the application asked for.
     * @param limits the device's limits.
     * @return the capabilities the QP gets (no receive queue of its own with an SRQ; at least one
     *         SGE each way).
     * @throws RdmaException EINVAL if a value is outside the device's limits.
     */
    static QpCap grant(final QpInitAttr init, final DeviceLimits limits)
    {
        final QpCap cap = init.cap();
        if (cap.maxSendWr() < 1 || cap.maxSendWr() > limits.maxQpWr())
        {
            throw new RdmaException(Errno.EINVAL, "max_send_wr " + cap.maxSendWr() + " is outside 1..max_qp_wr " +
                limits.maxQpWr());
        }
        if (init.srq() == null && (cap.maxRecvWr() < 1 || cap.maxRecvWr() > limits.maxQpWr()))
        {
            throw new RdmaException(Errno.EINVAL, "max_recv_wr " + cap.maxRecvWr() + " is outside 1..max_qp_wr " +
                limits.maxQpWr());
        }
        if (cap.maxSendSge() < 0 || cap.maxSendSge() > limits.maxSge())
        {
            throw new RdmaException(Errno.EINVAL, "max_send_sge " + cap.maxSendSge() + " exceeds max_sge " +
                limits.maxSge());
        }
        if (cap.maxRecvSge() < 0 || cap.maxRecvSge() > limits.maxSge())
        {
            throw new RdmaException(Errno.EINVAL, "max_recv_sge " + cap.maxRecvSge() + " exceeds max_sge " +
                limits.maxSge());
        }
        if (cap.maxInlineData() < 0 || cap.maxInlineData() > limits.maxInlineData())
        {
            throw new RdmaException(Errno.EINVAL, "max_inline_data " + cap.maxInlineData() + " exceeds " +
                limits.maxInlineData());
        }
        return new QpCap(cap.maxSendWr(), init.srq() != null ? 0 : cap.maxRecvWr(), Math.max(1, cap.maxSendSge()),
            Math.max(1, cap.maxRecvSge()), cap.maxInlineData());
    }

    /**
     * @param init what the application asked for.
     * @param pd   the QP's PD.
     * @return the SRQ the QP takes its receives from, or null.
     * @throws RdmaException EINVAL if the SRQ is not of this PD.
     */
    static SoftSrq srq(final QpInitAttr init, final SoftPd pd)
    {
        if (init.srq() == null)
        {
            return null;
        }
        if (!(init.srq() instanceof SoftSrq s) || s.pd() != pd)
        {
            throw new RdmaException(Errno.EINVAL, "the SRQ belongs to another protection domain or device");
        }
        return s;
    }
}
