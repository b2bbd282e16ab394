package io.rdma4j.tools.pingpong;

import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.PortAttr;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.SendWr;

import java.util.List;

/**
 * ibv_ud_pingpong: one UD QP and an address handle to the peer; a 40-byte GRH slot in front of
 * each receive, and messages within one packet (UD has no segmentation).
 */
final class UdQps extends PingPongQps
{
    /** Q_Key both ends use. */
    static final int QKEY = 0x11111111;
    /** Room for the GRH a UD receive gets in front of the payload. */
    static final int GRH_BYTES = 40;
    /** Hop limit of the address handle. */
    static final int HOP_LIMIT = 64;

    private AddressHandle ah;
    private int remoteQpn;

    /**
     * @param config the run's parameters.
     */
    UdQps(final PingPongConfig config)
    {
        super(config);
    }

    @Override
    int payloadOffset()
    {
        return GRH_BYTES;
    }

    @Override
    protected QpType qpType()
    {
        return QpType.UD;
    }

    @Override
    void checkSize(final Context ctx) throws PingPongException
    {
        final int mtu;
        try
        {
            mtu = ctx.queryPort(cfg.ibPort()).activeMtu().bytes();
        }
        catch (final RdmaException ex)
        {
            throw PingPongException.withCause("Unable to query port info for port " + cfg.ibPort(), ex);
        }
        if (cfg.size() > mtu)
        {
            throw new PingPongException("Requested size larger than port MTU (" + mtu + ")");
        }
    }

    @Override
    protected QpAttr initAttr(final QpAttr attr)
    {
        return attr.qkey(QKEY);
    }

    @Override
    protected void checkLid(final PortAttr port)
    {
        // addressed through the address handle: the LID is not needed
    }

    @Override
    String localSeparator()
    {
        return ": ";
    }

    @Override
    void connect(final List<PingPongDest> mine, final List<PingPongDest> remote) throws PingPongException
    {
        final PingPongDest dest = remote.getFirst();
        try
        {
            qps.getFirst().modify(new QpAttr().state(QpState.RTR));
        }
        catch (final RdmaException ex)
        {
            throw PingPongException.withCause("Failed to modify QP to RTR", ex);
        }
        try
        {
            qps.getFirst().modify(new QpAttr().state(QpState.RTS).sqPsn(mine.getFirst().psn()));
        }
        catch (final RdmaException ex)
        {
            throw PingPongException.withCause("Failed to modify QP to RTS", ex);
        }
        try
        {
            ah = pd.createAh(addressVector(dest, HOP_LIMIT));
        }
        catch (final RdmaException | PingPongException ex)
        {
            throw PingPongException.withCause("Failed to create AH", ex);
        }
        remoteQpn = dest.qpn();
    }

    @Override
    protected void address(final SendWr wr)
    {
        wr.ud(ah, remoteQpn, QKEY);
    }

    @Override
    protected void closeShared(final Closer closer)
    {
        closer.close(ah, "Couldn't destroy AH");
        ah = null;
    }
}
