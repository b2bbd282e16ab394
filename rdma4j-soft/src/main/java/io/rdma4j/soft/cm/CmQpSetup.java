package io.rdma4j.soft.cm;

import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;

/**
 * How rdma_cm sets up the QP of an id before any connection message: which QP types fit a port
 * space, the INIT attributes it gives each type, and a UD QP's way straight on to RTS.
 * <p>
 * Stateless; runs on the application thread calling createQp or initQpAttr.
 */
final class CmQpSetup
{
    private CmQpSetup()
    {
    }

    /** @throws RdmaException EINVAL if a QP of the type does not fit the port space. */
    static void checkType(final PortSpace portSpace, final QpType type)
    {
        final boolean fits = switch (portSpace)
        {
            case UDP, IPOIB -> type == QpType.UD;
            case TCP -> type == QpType.RC || type == QpType.UC;
            case IB -> true;
        };
        RdmaException.check(fits, Errno.EINVAL, "createQp: a " + type + " QP does not fit the " + portSpace +
            " port space (UDP: UD; TCP: RC or UC; IB: any)");
    }

    /**
     * Create the id's QP in the PD and take it to its initial state; a QP that cannot get there is
     * destroyed again.
     *
     * @throws RdmaException EINVAL if the PD is of another device than the id's.
     */
    static QueuePair create(final Context verbs, final ProtectionDomain pd, final QpInitAttr initAttr)
    {
        RdmaException.check(pd.context().device() == verbs.device(), Errno.EINVAL,
            "createQp: the PD is on " + pd.context().device().name() + ", the id on " + verbs.device().name());
        final QueuePair created = pd.createQp(initAttr);
        try
        {
            moveToInitialState(created);
        }
        catch (final RuntimeException ex)
        {
            created.close();
            throw ex;
        }
        return created;
    }

    /** The INIT attributes rdma_cm gives a QP of a type: port 1, P_Key index 0, and a Q_Key or access flags. */
    static QpAttr initAttr(final QpType type)
    {
        final QpAttr init = new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1);
        return switch (type)
        {
            case UD -> init.qkey(RdmaCm.UDP_QKEY);
            // Linux's CM grants READ and atomics together (with responder resources): a peer's atomics on a QP
            // rdma_cm connected must not fail with a remote invalid request
            case RC -> init.accessFlags(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
            // UC has no RDMA READ, so rdma_cm grants it remote write only
            default -> init.accessFlags(AccessFlag.REMOTE_WRITE);
        };
    }

    /**
     * Take a new QP to INIT; a UD QP on to RTR and RTS (SQ PSN 0) as it needs no connection.
     * Connected QPs wait in INIT for the connection's messages.
     */
    static void moveToInitialState(final QueuePair created)
    {
        created.modify(initAttr(created.type()));
        if (created.type() == QpType.UD)
        {
            created.modify(new QpAttr().state(QpState.RTR));
            created.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
        }
    }
}
