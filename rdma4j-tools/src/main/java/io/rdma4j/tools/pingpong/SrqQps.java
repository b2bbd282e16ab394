package io.rdma4j.tools.pingpong;

import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SharedReceiveQueue;
import io.rdma4j.verbs.SrqAttr;

import java.util.ArrayList;
import java.util.List;

/**
 * ibv_srq_pingpong: several RC QPs drawing their receives from one shared receive queue. Its
 * address exchange always carries {@value #MAX_QP} entries, zeroes for the QPs it does not use.
 */
final class SrqQps extends ConnectedQps
{
    /** srq_pingpong's MAX_QP: it always exchanges this many addresses. */
    static final int MAX_QP = 256;

    private SharedReceiveQueue srq;

    /**
     * @param config the run's parameters.
     */
    SrqQps(final PingPongConfig config)
    {
        super(config);
    }

    @Override
    int count()
    {
        return cfg.numQp();
    }

    @Override
    protected QpType qpType()
    {
        return QpType.RC;
    }

    @Override
    protected void createShared() throws PingPongException
    {
        try
        {
            srq = pd.createSrq(new SrqAttr(cfg.rxDepth(), 1, 0));
        }
        catch (final RdmaException ex)
        {
            throw PingPongException.withCause("Couldn't create SRQ", ex);
        }
    }

    @Override
    protected QpInitAttr qpInitAttr(final CompletionQueue cq)
    {
        return QpInitAttr.of(qpType(), cq, new QpCap(1, 0, 1, 0, 0)).withSrq(srq);
    }

    @Override
    protected String qpSuffix(final int index)
    {
        return "[" + index + "]";
    }

    @Override
    List<PingPongDest> wire(final List<PingPongDest> mine)
    {
        final List<PingPongDest> all = new ArrayList<>(mine);
        while (all.size() < MAX_QP)
        {
            all.add(PingPongDest.EMPTY);
        }
        return all;
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
    protected void postRecv(final RecvWr wr)
    {
        srq.postRecv(wr);
    }

    @Override
    int pollBatch()
    {
        // everything there can be at once
        return count() + cfg.rxDepth();
    }

    @Override
    int refillAt()
    {
        return count();
    }

    @Override
    int qpIndex(final int qpn)
    {
        for (int i = 0; i < qps.size(); i++)
        {
            if (qps.get(i).qpNum() == qpn)
            {
                return i;
            }
        }
        return -1;
    }

    @Override
    boolean reliable()
    {
        return true;
    }

    @Override
    protected void closeShared(final Closer closer)
    {
        closer.close(srq, "Couldn't destroy SRQ");
        srq = null;
    }
}
