package io.rdma4j.soft.verbs;

import io.rdma4j.soft.resource.SoftAh;
import io.rdma4j.soft.transport.RecvQueue;
import io.rdma4j.soft.transport.SendQueue;
import io.rdma4j.soft.transport.SendWqe;
import io.rdma4j.soft.transport.TransportQp;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.PostException;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpAttrMask;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.Sge;
import io.rdma4j.verbs.SharedReceiveQueue;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Set;

/**
 * A queue pair of the software device as the application sees it: the verbs' checks on modify and post,
 * multicast attach and destroy. What the transport reads (attributes, queues, where completions go) is
 * {@link TransportQp}'s; posting validates and copies the work request into a preallocated slot, then runs
 * the requester inline under {@link #sendLock()}.
 */
public final class SoftQp extends TransportQp
{
    private final VerbsDevice engine;
    private final SoftPd pd;
    private final SoftCq sendCq;
    private final SoftCq recvCq;
    private final SoftSrq srq;

    SoftQp(final VerbsDevice engine, final SoftPd pd, final int qpNum, final QpType type, final SoftCq sendCq,
        final SoftCq recvCq, final SoftSrq srq, final QpCap cap, final boolean sqSigAll)
    {
        super(engine, pd, qpNum, type, sendCq, recvCq, srq, cap, sqSigAll, engine.transportFactory());
        this.engine = engine;
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.srq = srq;
    }

    /**
     * @return the PD, typed.
     */
    public SoftPd softPd()
    {
        return pd;
    }

    @Override
    public CompletionQueue sendCq()
    {
        return sendCq;
    }

    @Override
    public CompletionQueue recvCq()
    {
        return recvCq;
    }

    @Override
    public SharedReceiveQueue srq()
    {
        return srq;
    }

    /**
     * @return the device engine.
     */
    public VerbsDevice engine()
    {
        return engine;
    }

    /**
     * Keep this QP's own multicast sends from looping back to it: IBV_QP_CREATE_BLOCK_SELF_MCAST_LB.
     */
    void blockSelfLoopback()
    {
        blockSelfMcastLoopback();
    }

    @Override
    public void modify(final QpAttr attr)
    {
        modify(attr, attr.mask());
    }

    @Override
    public void modify(final QpAttr attr, final Set<QpAttrMask> mask)
    {
        checkOpen();
        sendLock().lock();
        try
        {
            final QpState from = state();
            if (mask.contains(QpAttrMask.CUR_STATE) && attr.curState() != from)
            {
                throw new RdmaException(Errno.EINVAL, label() + " is in " + from + ", not in cur_qp_state " +
                    attr.curState());
            }
            final QpState to = mask.contains(QpAttrMask.STATE) ? attr.state() : from;
            QpTransitions.check(type(), from, to, mask);
            validateValues(attr, mask);
            applyAttributes(attr, mask);
            state(to);
            if (to == QpState.ERR && from != QpState.ERR)
            {
                flushQueues();
            }
            else if (to == QpState.RESET && from != QpState.RESET)
            {
                sendQueue().clear();
                if (ownRecvQueue() != null)
                {
                    ownRecvQueue().clear();
                }
                transport().reset();
            }
            transport().attributesChanged();
        }
        finally
        {
            sendLock().unlock();
        }
    }

    private void validateValues(final QpAttr attr, final Set<QpAttrMask> mask)
    {
        final DeviceLimits limits = engine.limits();
        if (mask.contains(QpAttrMask.PORT) && attr.portNum() != 1)
        {
            throw new RdmaException(Errno.EINVAL, "port_num " + attr.portNum() + " does not exist: the device has port 1");
        }
        if (mask.contains(QpAttrMask.PKEY_INDEX) && attr.pkeyIndex() != 0)
        {
            throw new RdmaException(Errno.EINVAL, "pkey_index " + attr.pkeyIndex() +
                " is outside the P_Key table (length 1)");
        }
        if (mask.contains(QpAttrMask.PATH_MTU) && attr.pathMtu().bytes() > engine.activeMtu().bytes())
        {
            throw new RdmaException(Errno.EINVAL, "path_mtu " + attr.pathMtu().bytes() +
                " exceeds the port's active MTU " + engine.activeMtu().bytes());
        }
        if (mask.contains(QpAttrMask.TIMEOUT) && (attr.timeout() < 0 || attr.timeout() > 31))
        {
            throw new RdmaException(Errno.EINVAL, "timeout " + attr.timeout() + " is outside 0..31");
        }
        if (mask.contains(QpAttrMask.RETRY_CNT) && (attr.retryCnt() < 0 || attr.retryCnt() > 7))
        {
            throw new RdmaException(Errno.EINVAL, "retry_cnt " + attr.retryCnt() + " is outside 0..7");
        }
        if (mask.contains(QpAttrMask.RNR_RETRY) && (attr.rnrRetry() < 0 || attr.rnrRetry() > 7))
        {
            throw new RdmaException(Errno.EINVAL, "rnr_retry " + attr.rnrRetry() + " is outside 0..7");
        }
        if (mask.contains(QpAttrMask.MIN_RNR_TIMER) && (attr.minRnrTimer() < 0 || attr.minRnrTimer() > 31))
        {
            throw new RdmaException(Errno.EINVAL, "min_rnr_timer " + attr.minRnrTimer() + " is outside 0..31");
        }
        if (mask.contains(QpAttrMask.MAX_QP_RD_ATOMIC) &&
            (attr.maxRdAtomic() < 0 || attr.maxRdAtomic() > limits.maxQpInitRdAtom()))
        {
            throw new RdmaException(Errno.EINVAL, "max_rd_atomic " + attr.maxRdAtomic() +
                " exceeds max_qp_init_rd_atom " + limits.maxQpInitRdAtom());
        }
        if (mask.contains(QpAttrMask.MAX_DEST_RD_ATOMIC) &&
            (attr.maxDestRdAtomic() < 0 || attr.maxDestRdAtomic() > limits.maxQpRdAtom()))
        {
            throw new RdmaException(Errno.EINVAL, "max_dest_rd_atomic " + attr.maxDestRdAtomic() +
                " exceeds max_qp_rd_atom " + limits.maxQpRdAtom());
        }
        if (mask.contains(QpAttrMask.ACCESS_FLAGS) &&
            (attr.accessFlags() & ~(AccessFlag.REMOTE_WRITE.bit() | AccessFlag.REMOTE_READ.bit() |
            AccessFlag.REMOTE_ATOMIC.bit() | AccessFlag.LOCAL_WRITE.bit() | AccessFlag.MW_BIND.bit())) != 0)
        {
            throw new RdmaException(Errno.EINVAL, "unknown qp_access_flags bits 0x" +
                Integer.toHexString(attr.accessFlags()));
        }
        if (mask.contains(QpAttrMask.AV))
        {
            final AhAttr av = attr.ahAttr();
            if (av == null || !av.isGlobal() || av.grh().dgid().isZero())
            {
                throw new RdmaException(Errno.EINVAL,
                    "a RoCE address vector needs a GRH with the destination GID (the peer's IP address)");
            }
            SoftAh.checkFamily(av.grh().dgid(), engine.gid(), "address vector");
        }
        if (mask.contains(QpAttrMask.CAP))
        {
            throw new RdmaException(Errno.EINVAL, "the software device cannot resize a QP (IBV_QP_CAP)");
        }
    }

    @Override
    public QpAttr query()
    {
        checkOpen();
        return currentAttributes();
    }

    @Override
    public void postSend(final SendWr first)
    {
        checkOpen();
        final SendQueue sendQueue = sendQueue();
        sendLock().lock();
        try
        {
            final QpState current = state();
            int index = 0;
            for (SendWr wr = first; wr != null; wr = wr.next(), index++)
            {
                if (current != QpState.ERR && current.ordinal() < QpState.RTS.ordinal())
                {
                    throw new PostException(Errno.EINVAL, label() + " is in " + current +
                        ": sends can be posted in RTS (or SQD, SQE, ERR)", index);
                }
                validateSend(wr, index);
                if (sendQueue.isFull())
                {
                    throw new PostException(Errno.ENOMEM, label() + " send queue is full: max_send_wr is " +
                        sendQueue.capacity() + " and none has completed", index);
                }
                final SendWqe wqe = sendQueue.add(wr, sqSigAll());
                if (wqe.isInline)
                {
                    copyInline(wr, wqe);
                }
                if (current == QpState.ERR)
                {
                    // a QP in error completes new work at once, flushed
                    transport().flush();
                }
            }
            if (current != QpState.ERR)
            {
                transport().kick();
            }
        }
        finally
        {
            sendLock().unlock();
            // the chain's packets leave together, outside the QP's lock (or with the next poll's, see sendsPosted)
            engine.sendsPosted();
        }
    }

    private void validateSend(final SendWr wr, final int index)
    {
        final WrOpcode opcode = wr.opcode();
        if (opcode == null || !opcode.allowedOn(type()))
        {
            throw new PostException(Errno.EINVAL, "opcode " + opcode + " cannot be posted on a " + type() + " QP", index);
        }
        if (!SendFlags.valid(wr.sendFlags()))
        {
            throw new PostException(Errno.EINVAL, "unknown send_flags bits 0x" + Integer.toHexString(wr.sendFlags()),
                index);
        }
        final QpCap cap = cap();
        final int numSge = wr.sgList().numSge();
        final long total = wr.sgList().totalLength();
        if ((wr.sendFlags() & SendFlags.INLINE) != 0)
        {
            if (total > cap.maxInlineData())
            {
                throw new PostException(Errno.EINVAL, "inline send of " + total + " bytes exceeds max_inline_data " +
                    cap.maxInlineData(), index);
            }
        }
        else if (numSge > cap.maxSendSge())
        {
            throw new PostException(Errno.EINVAL, "send has " + numSge + " SGEs, max_send_sge is " + cap.maxSendSge(),
                index);
        }
        if (total > engine.limits().maxMsgSize())
        {
            throw new PostException(Errno.EINVAL, "message of " + total + " bytes exceeds max_msg_sz " +
                engine.limits().maxMsgSize(), index);
        }
        if (type() == QpType.UD)
        {
            if (!(wr.ah() instanceof SoftAh ah) || !ah.isValid())
            {
                throw new PostException(Errno.EINVAL, "a UD send needs a valid address handle of this device", index);
            }
            if (ah.pd() != pd)
            {
                throw new PostException(Errno.EINVAL, "the address handle belongs to another protection domain",
                    index);
            }
        }
        if ((opcode == WrOpcode.ATOMIC_CMP_AND_SWP || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD) &&
            (total != 8 || numSge != 1))
        {
            throw new PostException(Errno.EINVAL, "an atomic needs exactly one 8-byte SGE, got " + numSge +
                " SGEs of " + total + " bytes", index);
        }
    }

    private void copyInline(final SendWr wr, final SendWqe wqe)
    {
        long at = 0;
        for (int i = 0; i < wr.sgList().numSge(); i++)
        {
            final Sge sge = wr.sgList().get(i);
            if (sge.length() == 0)
            {
                continue;
            }
            // inline data is read by address, like the C library: the lkey is not checked
            final MemorySegment source = MemorySegment.ofAddress(sge.addr()).reinterpret(sge.length());
            MemorySegment.copy(source, 0, wqe.inline, at, sge.length());
            at += sge.length();
        }
    }

    @Override
    public void postRecv(final RecvWr first)
    {
        checkOpen();
        if (srq != null)
        {
            throw new PostException(Errno.EINVAL, label() + " uses an SRQ: post receives to the SRQ", 0);
        }
        final QpState current = state();
        if (current == QpState.RESET)
        {
            throw new PostException(Errno.EINVAL, label() + " is in RESET: receives can be posted from INIT on", 0);
        }
        final RecvQueue recvQueue = ownRecvQueue();
        recvQueue.post(first, label());
        if (state() == QpState.ERR)
        {
            recvQueue.drain(wrId -> recvCq.flushRecv(wrId, qpNum()));
        }
    }

    @Override
    public void attachMulticast(final Gid gid, final int lid)
    {
        checkOpen();
        if (type() != QpType.UD)
        {
            throw new RdmaException(Errno.EINVAL, "only UD QPs can attach to multicast groups; " + label() + " is " + type());
        }
        if (gid == null || !gid.isMulticast())
        {
            throw new RdmaException(Errno.EINVAL, "GID " + gid + " is not a multicast GID (first byte 0xFF, or " +
                "an IPv4-mapped 224.0.0.0/4 address)");
        }
        engine.mcast().attach(gid, this);
    }

    @Override
    public void detachMulticast(final Gid gid, final int lid)
    {
        checkOpen();
        if (type() != QpType.UD)
        {
            throw new RdmaException(Errno.EINVAL, "only UD QPs attach to multicast groups; " + label() + " is " + type());
        }
        if (gid == null)
        {
            throw new RdmaException(Errno.EINVAL, "the GID is null");
        }
        engine.mcast().detach(gid, this);
    }

    @Override
    public Map<String, Long> counters()
    {
        return qpCounters().snapshot();
    }

    private void checkOpen()
    {
        if (!isOpen())
        {
            throw new RdmaException(Errno.EINVAL, label() + " is destroyed");
        }
    }

    @Override
    public void close()
    {
        sendLock().lock();
        try
        {
            if (!isOpen())
            {
                throw new RdmaException(Errno.EINVAL, label() + " is already destroyed");
            }
            markClosed();
            state(QpState.RESET);
            transport().reset();
        }
        finally
        {
            sendLock().unlock();
        }
        engine.mcast().detachAll(this);
        engine.removeQp(this);
        sendCq.removeUser();
        if (recvCq != sendCq)
        {
            recvCq.removeUser();
        }
        if (srq != null)
        {
            srq.removeUser();
        }
        pd.release(this);
        arena.close();
    }
}
