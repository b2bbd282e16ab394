package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.util.concurrent.TimeUnit;

/**
 * Placeholder until the connection manager lands.
 */
public final class SoftEventChannel implements EventChannel
{
    /**
     * @return a new channel.
     */
    public static EventChannel create()
    {
        return new SoftEventChannel();
    }

    @Override
    public CmId createId(final Object context, final PortSpace portSpace)
    {
        throw new RdmaException(Errno.ENOSYS, "the connection manager is not built yet");
    }

    @Override
    public CmEvent getEvent(final long timeout, final TimeUnit unit)
    {
        return null;
    }

    @Override
    public void close()
    {
    }
}
