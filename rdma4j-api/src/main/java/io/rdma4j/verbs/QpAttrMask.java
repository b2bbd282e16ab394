package io.rdma4j.verbs;

import java.util.Set;

/**
 * Which {@link QpAttr} fields a modify call applies ({@code enum ibv_qp_attr_mask}).
 */
public enum QpAttrMask
{
    STATE(1), CUR_STATE(1 << 1), EN_SQD_ASYNC_NOTIFY(1 << 2), ACCESS_FLAGS(1 << 3), PKEY_INDEX(1 << 4), PORT(1 << 5),
    QKEY(1 << 6), AV(1 << 7), PATH_MTU(1 << 8), TIMEOUT(1 << 9), RETRY_CNT(1 << 10), RNR_RETRY(1 << 11),
    RQ_PSN(1 << 12), MAX_QP_RD_ATOMIC(1 << 13), ALT_PATH(1 << 14), MIN_RNR_TIMER(1 << 15), SQ_PSN(1 << 16),
    MAX_DEST_RD_ATOMIC(1 << 17), PATH_MIG_STATE(1 << 18), CAP(1 << 19), DEST_QPN(1 << 20);

    private final int bit;

    QpAttrMask(final int bit)
    {
        this.bit = bit;
    }

    /**
     * @return the bit libibverbs uses.
     */
    public int bit()
    {
        return bit;
    }

    /**
     * @param set attributes.
     * @return their bits or-ed together.
     */
    public static int toMask(final Set<QpAttrMask> set)
    {
        int mask = 0;
        for (final QpAttrMask m : set)
        {
            mask |= m.bit;
        }
        return mask;
    }
}
