package io.rdma4j.cm;

import java.net.InetSocketAddress;

/**
 * An event as an engine hands it out, for the API's tests: its type, ids, status and connection
 * parameters as given, and whether it was acknowledged.
 */
final class FakeCmEvent implements CmEvent
{
    private final CmEventType type;
    private final CmId id;
    private final CmId listenId;
    private final int status;
    private final ConnParam connParam;
    private boolean acked;

    FakeCmEvent(final CmEventType type, final CmId id, final CmId listenId)
    {
        this(type, id, listenId, 0, null);
    }

    FakeCmEvent(final CmEventType type, final CmId id, final CmId listenId, final int status,
        final ConnParam connParam)
    {
        this.type = type;
        this.id = id;
        this.listenId = listenId;
        this.status = status;
        this.connParam = connParam;
    }

    boolean acked()
    {
        return acked;
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
        return null;
    }

    @Override
    public Object joinContext()
    {
        return null;
    }

    @Override
    public InetSocketAddress multicastAddress()
    {
        return null;
    }

    @Override
    public void ack()
    {
        acked = true;
    }
}
