package io.rdma4j.cm;

import java.net.InetSocketAddress;

/**
 * An engine's event as the {@link RoutedEventChannel}'s application sees it: its ids are the routed ones.
 */
final class RoutedCmEvent implements CmEvent
{
    private final CmEvent event;
    private final CmId id;
    private final CmId listenId;

    RoutedCmEvent(final CmEvent event, final CmId id, final CmId listenId)
    {
        this.event = event;
        this.id = id;
        this.listenId = listenId;
    }

    @Override
    public CmEventType type()
    {
        return event.type();
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
        return event.status();
    }

    @Override
    public ConnParam connParam()
    {
        return event.connParam();
    }

    @Override
    public UdParam udParam()
    {
        return event.udParam();
    }

    @Override
    public Object joinContext()
    {
        return event.joinContext();
    }

    @Override
    public InetSocketAddress multicastAddress()
    {
        return event.multicastAddress();
    }

    @Override
    public void ack()
    {
        event.ack();
    }

    @Override
    public void close()
    {
        event.close();
    }

    @Override
    public String toString()
    {
        return event.toString();
    }
}
