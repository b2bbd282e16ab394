package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.UdParam;

import java.net.InetSocketAddress;

/**
 * An event of the soft connection manager. Its fields are fixed when it is queued, except that
 * retrieving a MULTICAST_JOIN whose automatic attach fails turns it into MULTICAST_ERROR, as
 * librdmacm's {@code rdma_get_cm_event} does; the channel's lock guards that and the ack flag.
 */
final class SoftCmEvent implements CmEvent
{
    private final SoftEventChannel channel;
    private final SoftCmId id;
    private final UdParam udParam;
    private final MulticastJoin join;
    private final ConnParam connParam;
    private final SoftCmId listener;
    private CmEventType type;
    private int status;
    private boolean acked;

    SoftCmEvent(
        final SoftEventChannel channel, final CmEventType type, final SoftCmId id, final int status,
        final UdParam udParam, final MulticastJoin join)
    {
        this(channel, type, id, status, udParam, join, null, null);
    }

    SoftCmEvent(
        final SoftEventChannel channel, final CmEventType type, final SoftCmId id, final int status,
        final UdParam udParam, final MulticastJoin join, final ConnParam connParam, final SoftCmId listener)
    {
        this.channel = channel;
        this.type = type;
        this.id = id;
        this.status = status;
        this.udParam = udParam;
        this.join = join;
        this.connParam = connParam;
        this.listener = listener;
    }

    @Override
    public CmEventType type()
    {
        channel.lock.lock();
        try
        {
            return type;
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    @Override
    public CmId id()
    {
        return id;
    }

    @Override
    public CmId listenId()
    {
        return listener;
    }

    @Override
    public int status()
    {
        channel.lock.lock();
        try
        {
            return status;
        }
        finally
        {
            channel.lock.unlock();
        }
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
        return join != null ? join.context : null;
    }

    @Override
    public InetSocketAddress multicastAddress()
    {
        return join != null ? join.address : null;
    }

    @Override
    public void ack()
    {
        channel.acknowledge(this, true);
    }

    @Override
    public void close()
    {
        channel.acknowledge(this, false);
    }

    /**
     * @return the id the event is counted against for acknowledgement: the listener for a
     * CONNECT_REQUEST, as librdmacm counts it, else the event's id.
     */
    SoftCmId softId()
    {
        return listener != null ? listener : id;
    }

    MulticastJoin join()
    {
        return join;
    }

    /** Called with the channel's lock held. */
    boolean markAcked()
    {
        if (acked)
        {
            return false;
        }
        acked = true;
        return true;
    }

    /** Called with the channel's lock held, while the event is being retrieved. */
    void fail(final CmEventType errorType, final int errorStatus)
    {
        type = errorType;
        status = errorStatus;
    }

    /** Called with the channel's lock held. */
    CmEventType typeLocked()
    {
        return type;
    }

    @Override
    public String toString()
    {
        return type.description() + " (status " + statusDescription() + ")" +
            (join != null ? " for " + join.address : "");
    }
}
