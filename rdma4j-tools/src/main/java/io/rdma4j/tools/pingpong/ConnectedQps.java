package io.rdma4j.tools.pingpong;

import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;

import java.util.List;

/**
 * The connected tools' QPs (rc, uc, srq): each QP is moved to RTR towards one remote QP and then
 * to RTS; the reliable ones add the RC attributes at each step.
 */
abstract class ConnectedQps extends PingPongQps
{
    /** Hop limit of the connected tools' paths. */
    static final int HOP_LIMIT = 1;

    /**
     * @param config the run's parameters.
     */
    protected ConnectedQps(final PingPongConfig config)
    {
        super(config);
    }

    @Override
    protected QpAttr initAttr(final QpAttr attr)
    {
        return attr.accessFlags(0);
    }

    @Override
    final void connect(final List<PingPongDest> mine, final List<PingPongDest> remote) throws PingPongException
    {
        for (int i = 0; i < count(); i++)
        {
            final QueuePair qp = qps.get(i);
            final PingPongDest dest = remote.get(i);
            final QpAttr rtr = rtr(new QpAttr().state(QpState.RTR).pathMtu(cfg.mtu()).destQpNum(dest.qpn())
                .rqPsn(dest.psn()));
            try
            {
                // srq_pingpong takes the GRH's GID from the first remote entry for every QP; they are all the same.
                final AhAttr av = addressVector(new PingPongDest(dest.lid(), dest.qpn(), dest.psn(),
                    remote.getFirst().gid()), HOP_LIMIT);
                qp.modify(rtr.ahAttr(av));
            }
            catch (final RdmaException | PingPongException ex)
            {
                throw PingPongException.withCause("Failed to modify QP" + qpSuffix(i) + " to RTR", ex);
            }
            try
            {
                qp.modify(rts(new QpAttr().state(QpState.RTS).sqPsn(mine.get(i).psn())));
            }
            catch (final RdmaException ex)
            {
                throw PingPongException.withCause("Failed to modify QP" + qpSuffix(i) + " to RTS", ex);
            }
        }
    }

    /**
     * @param attr the move to RTR: state, path MTU, remote QPN and PSN.
     * @return it, with what the transport adds.
     */
    protected QpAttr rtr(final QpAttr attr)
    {
        return attr;
    }

    /**
     * @param attr the move to RTS: state and send PSN.
     * @return it, with what the transport adds.
     */
    protected QpAttr rts(final QpAttr attr)
    {
        return attr;
    }
}
