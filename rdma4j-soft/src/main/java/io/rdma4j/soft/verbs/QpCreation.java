package io.rdma4j.soft.verbs;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.RdmaException;

/**
 * {@code ibv_create_qp}: the checks against the device's limits, the capabilities granted (each refusal is
 * EINVAL with a sentence naming the attribute and its limit), and the QP made under a number the engine's
 * table chooses.
 */
final class QpCreation
{
    private QpCreation()
    {
    }

    /**
     * Make a QP: checked, numbered, in the engine's table, counted as a user of its CQs and SRQ.
     *
     * @param engine the device's engine.
     * @param pd     the QP's PD.
     * @param init   what the application asked for.
     * @return the QP, in RESET.
     * @throws RdmaException EINVAL for a missing type, CQs of another device or a value outside the device's
     *                       limits; ENOMEM when the device has max_qp QPs.
     */
    static SoftQp create(final VerbsDevice engine, final SoftPd pd, final QpInitAttr init)
    {
        if (init.type() == null)
        {
            throw new RdmaException(Errno.EINVAL, "the QP type is missing");
        }
        if (!(init.sendCq() instanceof SoftCq sendCq) || !(init.recvCq() instanceof SoftCq recvCq))
        {
            throw new RdmaException(Errno.EINVAL, "a QP needs a send CQ and a receive CQ of this device");
        }
        final QpCap granted = grant(init, engine.limits());
        final SoftSrq qpSrq = srq(init, pd);
        return engine.addQp(qpn ->
        {
            final SoftQp qp = new SoftQp(engine, pd, qpn, init.type(), sendCq, recvCq, qpSrq, granted, init.sqSigAll());
            sendCq.addUser();
            if (recvCq != sendCq)
            {
                recvCq.addUser();
            }
            if (qpSrq != null)
            {
                qpSrq.addUser();
            }
            return qp;
        });
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
