package io.rdma4j.soft.verbs;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.QpAttrMask;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;

import java.util.EnumSet;
import java.util.Set;

import static io.rdma4j.verbs.QpAttrMask.ACCESS_FLAGS;
import static io.rdma4j.verbs.QpAttrMask.ALT_PATH;
import static io.rdma4j.verbs.QpAttrMask.AV;
import static io.rdma4j.verbs.QpAttrMask.CUR_STATE;
import static io.rdma4j.verbs.QpAttrMask.DEST_QPN;
import static io.rdma4j.verbs.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static io.rdma4j.verbs.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static io.rdma4j.verbs.QpAttrMask.MAX_QP_RD_ATOMIC;
import static io.rdma4j.verbs.QpAttrMask.MIN_RNR_TIMER;
import static io.rdma4j.verbs.QpAttrMask.PATH_MIG_STATE;
import static io.rdma4j.verbs.QpAttrMask.PATH_MTU;
import static io.rdma4j.verbs.QpAttrMask.PKEY_INDEX;
import static io.rdma4j.verbs.QpAttrMask.PORT;
import static io.rdma4j.verbs.QpAttrMask.QKEY;
import static io.rdma4j.verbs.QpAttrMask.RETRY_CNT;
import static io.rdma4j.verbs.QpAttrMask.RNR_RETRY;
import static io.rdma4j.verbs.QpAttrMask.RQ_PSN;
import static io.rdma4j.verbs.QpAttrMask.SQ_PSN;
import static io.rdma4j.verbs.QpAttrMask.STATE;
import static io.rdma4j.verbs.QpAttrMask.TIMEOUT;

/**
 * The legal QP state transitions with the attributes each requires and allows, per QP type, as
 * the {@code ibv_modify_qp(3)} table gives them (IBA 10.3.1 and C11-8).
 */
public final class QpTransitions
{
    private QpTransitions()
    {
    }

    /**
     * Check a modify call.
     *
     * @param type the QP type.
     * @param from the current state.
     * @param to   the requested state (equal to from when the state is not being changed).
     * @param mask the attributes given.
     * @throws RdmaException EINVAL naming the illegal transition, the missing or the disallowed
     *                       attribute.
     */
    public static void check(final QpType type, final QpState from, final QpState to, final Set<QpAttrMask> mask)
    {
        final Rule rule = rule(type, from, to);
        if (rule == null)
        {
            throw new RdmaException(Errno.EINVAL, "a " + type + " QP cannot go from " + from + " to " + to);
        }
        for (final QpAttrMask required : rule.required)
        {
            if (!mask.contains(required))
            {
                throw new RdmaException(Errno.EINVAL, "the " + from + "->" + to + " transition of a " + type +
                    " QP requires attribute " + required);
            }
        }
        for (final QpAttrMask given : mask)
        {
            if (given != STATE && given != CUR_STATE && !rule.required.contains(given) &&
                !rule.optional.contains(given))
            {
                throw new RdmaException(Errno.EINVAL, "attribute " + given + " is not allowed in the " + from + "->" +
                    to + " transition of a " + type + " QP");
            }
        }
    }

    private record Rule(EnumSet<QpAttrMask> required, EnumSet<QpAttrMask> optional)
    {
    }

    private static Rule rule(final QpType type, final QpState from, final QpState to)
    {
        if (to == QpState.RESET || to == QpState.ERR)
        {
            return new Rule(EnumSet.noneOf(QpAttrMask.class), EnumSet.noneOf(QpAttrMask.class));
        }
        final boolean ud = type == QpType.UD;
        final boolean rc = type == QpType.RC;
        final EnumSet<QpAttrMask> keyOrAccess = ud ? EnumSet.of(QKEY) : EnumSet.of(ACCESS_FLAGS);
        switch (from)
        {
            case RESET:
                if (to == QpState.INIT)
                {
                    final EnumSet<QpAttrMask> required = EnumSet.of(PKEY_INDEX, PORT);
                    required.addAll(keyOrAccess);
                    return new Rule(required, EnumSet.noneOf(QpAttrMask.class));
                }
                return null;
            case INIT:
                if (to == QpState.INIT)
                {
                    final EnumSet<QpAttrMask> optional = EnumSet.of(PKEY_INDEX, PORT);
                    optional.addAll(keyOrAccess);
                    return new Rule(EnumSet.noneOf(QpAttrMask.class), optional);
                }
                if (to == QpState.RTR)
                {
                    if (ud)
                    {
                        return new Rule(EnumSet.noneOf(QpAttrMask.class), EnumSet.of(PKEY_INDEX, QKEY));
                    }
                    final EnumSet<QpAttrMask> required = EnumSet.of(AV, PATH_MTU, DEST_QPN, RQ_PSN);
                    if (rc)
                    {
                        required.add(MAX_DEST_RD_ATOMIC);
                        required.add(MIN_RNR_TIMER);
                    }
                    return new Rule(required, EnumSet.of(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX));
                }
                return null;
            case RTR:
                if (to == QpState.RTS)
                {
                    if (ud)
                    {
                        return new Rule(EnumSet.of(SQ_PSN), EnumSet.of(QKEY));
                    }
                    final EnumSet<QpAttrMask> required = EnumSet.of(SQ_PSN);
                    final EnumSet<QpAttrMask> optional = EnumSet.of(ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE);
                    if (rc)
                    {
                        required.addAll(EnumSet.of(TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC));
                        optional.add(MIN_RNR_TIMER);
                    }
                    return new Rule(required, optional);
                }
                return null;
            case RTS:
            case SQD:
            case SQE:
                if (to == QpState.RTS && from != QpState.SQE)
                {
                    return new Rule(EnumSet.noneOf(QpAttrMask.class), rtsOptional(type));
                }
                if (to == QpState.RTS)
                {
                    return new Rule(EnumSet.noneOf(QpAttrMask.class), ud ? EnumSet.of(QKEY) : EnumSet.of(ACCESS_FLAGS));
                }
                if (to == QpState.SQD && from != QpState.SQE)
                {
                    final EnumSet<QpAttrMask> optional = EnumSet.of(EN_SQD_ASYNC_NOTIFY);
                    if (from == QpState.SQD)
                    {
                        optional.addAll(rtsOptional(type));
                        optional.addAll(EnumSet.of(PKEY_INDEX, PORT));
                        if (rc)
                        {
                            optional.addAll(EnumSet.of(AV, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC,
                                MAX_DEST_RD_ATOMIC));
                        }
                    }
                    return new Rule(EnumSet.noneOf(QpAttrMask.class), optional);
                }
                return null;
            default:
                return null;
        }
    }

    private static EnumSet<QpAttrMask> rtsOptional(final QpType type)
    {
        return switch (type)
        {
            case UD -> EnumSet.of(QKEY);
            case UC -> EnumSet.of(ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE);
            case RC -> EnumSet.of(ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE, MIN_RNR_TIMER);
        };
    }
}
