package io.rdma4j.rdmacore.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.UdParam;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One {@code struct rdma_cm_event}, its contents copied into Java when it was taken; {@link #ack()} gives the
 * C event back to librdmacm, which an id's destruction waits for.
 */
public final class NativeCmEvent implements CmEvent
{
    private final MemorySegment raw;
    private final CmEventType type;
    private final NativeCmId id;
    private final NativeCmId listenId;
    private final int status;
    private final ConnParam connParam;
    private final UdParam udParam;
    private final Object joinContext;
    private final InetSocketAddress multicastAddress;
    private final AtomicBoolean acked = new AtomicBoolean();

    NativeCmEvent(final MemorySegment raw, final CmEventType type, final NativeCmId id, final NativeCmId listenId,
        final int status, final ConnParam connParam, final UdParam udParam, final Object joinContext,
        final InetSocketAddress multicastAddress)
    {
        this.raw = raw;
        this.type = type;
        this.id = id;
        this.listenId = listenId;
        this.status = status;
        this.connParam = connParam;
        this.udParam = udParam;
        this.joinContext = joinContext;
        this.multicastAddress = multicastAddress;
    }

    @Override
    public CmEventType type()
    {
        return type;
    }

    @Override
    public CmId id()
    {
        return id;
    }

    @Override
    public CmId listenId()
    {
        return listenId;
    }

    @Override
    public int status()
    {
        return status;
    }

    @Override
    public ConnParam connParam()
    {
        return connParam;
    }

    @Override
    public UdParam udParam()
    {
        return udParam;
    }

    @Override
    public Object joinContext()
    {
        return joinContext;
    }

    @Override
    public InetSocketAddress multicastAddress()
    {
        return multicastAddress;
    }

    @Override
    public void ack()
    {
        if (!acked.compareAndSet(false, true))
        {
            throw new RdmaException(Errno.EINVAL, "rdma_ack_cm_event: the " + type.description() +
                " event was acknowledged already");
        }
        Rdmacm.check("rdma_ack_cm_event of " + type.description(), "rdma_ack_cm_event", raw);
    }

    @Override
    public String toString()
    {
        return type.description() + " status " + status + " on " + id;
    }
}
