package io.rdma4j.verbs;

import java.util.EnumSet;

/**
 * Queue pair attributes ({@code struct ibv_qp_attr}) that remember which ones were set: each
 * setter adds its {@link QpAttrMask} bit, so {@code qp.modify(attr)} applies exactly the fields
 * given. Fluent and reusable; not thread-safe.
 */
public final class QpAttr
{
    private final EnumSet<QpAttrMask> mask = EnumSet.noneOf(QpAttrMask.class);
    private QpState state = QpState.RESET;
    private QpState curState = QpState.RESET;
    private Mtu pathMtu = Mtu.MTU_1024;
    private int qkey;
    private int rqPsn;
    private int sqPsn;
    private int destQpNum;
    private int accessFlags;
    private QpCap cap;
    private AhAttr ahAttr;
    private int pkeyIndex;
    private boolean sqDraining;
    private int maxRdAtomic;
    private int maxDestRdAtomic;
    private int minRnrTimer;
    private int portNum = 1;
    private int timeout;
    private int retryCnt;
    private int rnrRetry;

    /**
     * @return the attributes set so far.
     */
    public EnumSet<QpAttrMask> mask()
    {
        return EnumSet.copyOf(mask.isEmpty() ? EnumSet.noneOf(QpAttrMask.class) : mask);
    }

    /**
     * Forget which attributes were set, keeping the values.
     *
     * @return this.
     */
    public QpAttr clearMask()
    {
        mask.clear();
        return this;
    }

    public QpState state()
    {
        return state;
    }

    public QpAttr state(final QpState value)
    {
        state = value;
        mask.add(QpAttrMask.STATE);
        return this;
    }

    public QpState curState()
    {
        return curState;
    }

    public QpAttr curState(final QpState value)
    {
        curState = value;
        mask.add(QpAttrMask.CUR_STATE);
        return this;
    }

    public Mtu pathMtu()
    {
        return pathMtu;
    }

    public QpAttr pathMtu(final Mtu value)
    {
        pathMtu = value;
        mask.add(QpAttrMask.PATH_MTU);
        return this;
    }

    public int qkey()
    {
        return qkey;
    }

    public QpAttr qkey(final int value)
    {
        qkey = value;
        mask.add(QpAttrMask.QKEY);
        return this;
    }

    public int rqPsn()
    {
        return rqPsn;
    }

    public QpAttr rqPsn(final int value)
    {
        rqPsn = value;
        mask.add(QpAttrMask.RQ_PSN);
        return this;
    }

    public int sqPsn()
    {
        return sqPsn;
    }

    public QpAttr sqPsn(final int value)
    {
        sqPsn = value;
        mask.add(QpAttrMask.SQ_PSN);
        return this;
    }

    public int destQpNum()
    {
        return destQpNum;
    }

    public QpAttr destQpNum(final int value)
    {
        destQpNum = value;
        mask.add(QpAttrMask.DEST_QPN);
        return this;
    }

    /**
     * @return remote access rights granted to incoming requests, {@link AccessFlag} bits.
     */
    public int accessFlags()
    {
        return accessFlags;
    }

    public QpAttr accessFlags(final int value)
    {
        accessFlags = value;
        mask.add(QpAttrMask.ACCESS_FLAGS);
        return this;
    }

    public QpAttr accessFlags(final AccessFlag... flags)
    {
        int bits = 0;
        for (final AccessFlag flag : flags)
        {
            bits |= flag.bit();
        }
        return accessFlags(bits);
    }

    public QpCap cap()
    {
        return cap;
    }

    public QpAttr cap(final QpCap value)
    {
        cap = value;
        mask.add(QpAttrMask.CAP);
        return this;
    }

    public AhAttr ahAttr()
    {
        return ahAttr;
    }

    public QpAttr ahAttr(final AhAttr value)
    {
        ahAttr = value;
        mask.add(QpAttrMask.AV);
        return this;
    }

    public int pkeyIndex()
    {
        return pkeyIndex;
    }

    public QpAttr pkeyIndex(final int value)
    {
        pkeyIndex = value;
        mask.add(QpAttrMask.PKEY_INDEX);
        return this;
    }

    public boolean sqDraining()
    {
        return sqDraining;
    }

    public QpAttr sqDraining(final boolean value)
    {
        sqDraining = value;
        return this;
    }

    public int maxRdAtomic()
    {
        return maxRdAtomic;
    }

    public QpAttr maxRdAtomic(final int value)
    {
        maxRdAtomic = value;
        mask.add(QpAttrMask.MAX_QP_RD_ATOMIC);
        return this;
    }

    public int maxDestRdAtomic()
    {
        return maxDestRdAtomic;
    }

    public QpAttr maxDestRdAtomic(final int value)
    {
        maxDestRdAtomic = value;
        mask.add(QpAttrMask.MAX_DEST_RD_ATOMIC);
        return this;
    }

    public int minRnrTimer()
    {
        return minRnrTimer;
    }

    public QpAttr minRnrTimer(final int value)
    {
        minRnrTimer = value;
        mask.add(QpAttrMask.MIN_RNR_TIMER);
        return this;
    }

    public int portNum()
    {
        return portNum;
    }

    public QpAttr portNum(final int value)
    {
        portNum = value;
        mask.add(QpAttrMask.PORT);
        return this;
    }

    /**
     * @return the local ACK timeout exponent: 4.096 µs × 2^timeout, 0 meaning no timer.
     */
    public int timeout()
    {
        return timeout;
    }

    public QpAttr timeout(final int value)
    {
        timeout = value;
        mask.add(QpAttrMask.TIMEOUT);
        return this;
    }

    public int retryCnt()
    {
        return retryCnt;
    }

    public QpAttr retryCnt(final int value)
    {
        retryCnt = value;
        mask.add(QpAttrMask.RETRY_CNT);
        return this;
    }

    public int rnrRetry()
    {
        return rnrRetry;
    }

    public QpAttr rnrRetry(final int value)
    {
        rnrRetry = value;
        mask.add(QpAttrMask.RNR_RETRY);
        return this;
    }

    @Override
    public String toString()
    {
        return "QpAttr{mask=" + mask + ", state=" + state + ", pathMtu=" + pathMtu + ", qkey=0x" +
            Integer.toHexString(qkey) + ", rqPsn=" + rqPsn + ", sqPsn=" + sqPsn + ", destQpNum=" + destQpNum +
            ", accessFlags=" + accessFlags + ", ahAttr=" + ahAttr + ", timeout=" + timeout + ", retryCnt=" +
            retryCnt + ", rnrRetry=" + rnrRetry + ", minRnrTimer=" + minRnrTimer + ", maxRdAtomic=" + maxRdAtomic +
            ", maxDestRdAtomic=" + maxDestRdAtomic + '}';
    }
}
