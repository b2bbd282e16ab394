package io.rdma4j.tools.pingpong;

import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpType;

/**
 * ibv_rc_pingpong: one RC QP.
 */
final class RcQps extends ConnectedQps
{
    /**
     * @param config the run's parameters.
     */
    RcQps(final PingPongConfig config)
    {
        super(config);
    }

    @Override
    protected QpType qpType()
    {
        return QpType.RC;
    }

    @Override
    protected String gidFailure(final int gidIndex)
    {
        return "can't read sgid of index " + gidIndex;
    }

    @Override
    protected QpAttr rtr(final QpAttr attr)
    {
        return ReliableAttrs.rtr(attr);
    }

    @Override
    protected QpAttr rts(final QpAttr attr)
    {
        return ReliableAttrs.rts(attr);
    }

    @Override
    String parseFailed(final String message, final int ne)
    {
        // rc_pingpong's parse_single_wc reports, then its main adds this line; the other tools stop at the first
        return message + System.lineSeparator() + "parse WC failed " + ne;
    }

    @Override
    boolean reliable()
    {
        return true;
    }
}
