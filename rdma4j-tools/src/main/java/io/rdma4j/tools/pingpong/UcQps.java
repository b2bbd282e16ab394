package io.rdma4j.tools.pingpong;

import io.rdma4j.verbs.QpType;

/**
 * ibv_uc_pingpong: one UC QP, connected as RC's is but without ACKs, so without the RC attributes.
 */
final class UcQps extends ConnectedQps
{
    /**
     * @param config the run's parameters.
     */
    UcQps(final PingPongConfig config)
    {
        super(config);
    }

    @Override
    protected QpType qpType()
    {
        return QpType.UC;
    }

    @Override
    protected String gidFailure(final int gidIndex)
    {
        return "can't read sgid of index " + gidIndex;
    }
}
