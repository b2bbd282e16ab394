package io.rdma4j.cm;

import io.rdma4j.spi.RdmaProvider;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;

import java.net.InetSocketAddress;

/**
 * An id of a {@link RoutedEventChannel}: it has no engine until it is bound, resolved or made to listen, then
 * it is the chosen provider's id and every call goes to that.
 */
final class RoutedCmId implements CmId
{
    private final RoutedEventChannel channel;
    private final PortSpace portSpace;
    private volatile Object context;
    private volatile CmId engine;
    private boolean destroyed;

    RoutedCmId(final RoutedEventChannel channel, final Object context, final PortSpace portSpace)
    {
        this.channel = channel;
        this.context = context;
        this.portSpace = portSpace;
    }

    RoutedCmId(final RoutedEventChannel channel, final CmId engine)
    {
        this(channel, engine.context(), engine.portSpace());
        this.engine = engine;
    }

    /**
     * @return the provider's id behind this one, or null before it is bound, resolved or listening.
     */
    CmId engine()
    {
        return engine;
    }

    private synchronized CmId engineFor(final RdmaProvider provider)
    {
        RdmaException.check(!destroyed, Errno.EINVAL, "the id is destroyed");
        if (engine == null)
        {
            engine = channel.createEngineId(this, provider, context, portSpace);
        }
        return engine;
    }

    private CmId engine(final String operation)
    {
        final CmId current = engine;
        RdmaException.check(current != null && !destroyed, Errno.EINVAL, operation + ": the id is " +
            (destroyed ? "destroyed" : "neither bound nor resolved, so it has no device yet"));
        return current;
    }

    @Override
    public EventChannel channel()
    {
        return channel;
    }

    @Override
    public Object context()
    {
        return context;
    }

    @Override
    public void context(final Object context)
    {
        this.context = context;
        final CmId current = engine;
        if (current != null)
        {
            current.context(context);
        }
    }

    @Override
    public PortSpace portSpace()
    {
        return portSpace;
    }

    @Override
    public Context verbs()
    {
        final CmId current = engine;
        return current == null ? null : current.verbs();
    }

    @Override
    public QueuePair qp()
    {
        final CmId current = engine;
        return current == null ? null : current.qp();
    }

    @Override
    public InetSocketAddress localAddress()
    {
        final CmId current = engine;
        return current == null ? null : current.localAddress();
    }

    @Override
    public InetSocketAddress peerAddress()
    {
        final CmId current = engine;
        return current == null ? null : current.peerAddress();
    }

    @Override
    public void bindAddr(final InetSocketAddress address)
    {
        engineFor(channel.routing().forLocal(address.getAddress())).bindAddr(address);
    }

    @Override
    public void resolveAddr(final InetSocketAddress source, final InetSocketAddress destination, final int timeoutMs)
    {
        final CmId current = engine;
        (current != null ? current : engineFor(channel.routing().forResolve(source, destination)))
            .resolveAddr(source, destination, timeoutMs);
    }

    @Override
    public void resolveRoute(final int timeoutMs)
    {
        engine("resolveRoute").resolveRoute(timeoutMs);
    }

    @Override
    public void listen(final int backlog)
    {
        final CmId current = engine;
        // listening unbound is listening on the wildcard
        (current != null ? current : engineFor(channel.routing().forLocal(null))).listen(backlog);
    }

    @Override
    public QueuePair createQp(final ProtectionDomain pd, final QpInitAttr initAttr)
    {
        return engine("createQp").createQp(pd, initAttr);
    }

    @Override
    public void destroyQp()
    {
        final CmId current = engine;
        if (current != null)
        {
            current.destroyQp();
        }
    }

    @Override
    public void connect(final ConnParam param)
    {
        engine("connect").connect(param);
    }

    @Override
    public void accept(final ConnParam param)
    {
        engine("accept").accept(param);
    }

    @Override
    public void reject(final byte[] privateData)
    {
        engine("reject").reject(privateData);
    }

    @Override
    public void disconnect()
    {
        engine("disconnect").disconnect();
    }

    @Override
    public io.rdma4j.verbs.QpAttr initQpAttr(final io.rdma4j.verbs.QpState state)
    {
        return engine("initQpAttr").initQpAttr(state);
    }

    @Override
    public void establish()
    {
        engine("establish").establish();
    }

    @Override
    public void joinMulticast(final InetSocketAddress group, final Object context)
    {
        engine("joinMulticast").joinMulticast(group, context);
    }

    @Override
    public void joinMulticast(final InetSocketAddress group, final JoinFlags flags, final Object context)
    {
        engine("joinMulticast").joinMulticast(group, flags, context);
    }

    @Override
    public void leaveMulticast(final InetSocketAddress group)
    {
        engine("leaveMulticast").leaveMulticast(group);
    }

    @Override
    public synchronized void close()
    {
        if (destroyed)
        {
            return;
        }
        final CmId current = engine;
        if (current != null)
        {
            current.close();
            channel.forget(current);
        }
        destroyed = true;
        channel.forget(this);
    }

    @Override
    public String toString()
    {
        final CmId current = engine;
        return current == null ? "cm id " + portSpace + " (no device yet)" : current.toString();
    }
}
