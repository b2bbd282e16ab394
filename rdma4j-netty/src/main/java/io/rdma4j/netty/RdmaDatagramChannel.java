package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.AddressedEnvelope;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.JoinFlags;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.UdParam;
import io.rdma4j.verbs.AddressHandle;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.HashMap;
import java.util.Map;

/**
 * Netty's {@link DatagramChannel} over a UD QP of the connection manager's UDP port space, for multicast:
 * {@link #joinGroup} is {@code rdma_join_multicast} (a full member, its QP attached to the group) and
 * {@link #leaveGroup} is {@code rdma_leave_multicast}. Bind it to a local address first; the address chooses the
 * device.
 * <p>
 * What differs from a UDP socket: a datagram may be sent only to a group this channel has joined (a unicast
 * destination needs the connection manager's SIDR exchange, not done yet), and is at most the port's MTU; a
 * received datagram's sender has the sender's IP address and port 0, since UD packets carry no port, and its
 * recipient is the group (or this channel's address) with this channel's port. A member receives its own
 * datagrams. Datagrams that arrive while no receive is posted (a reader that does not read) are dropped.
 */
public class RdmaDatagramChannel extends AbstractRdmaChannel implements DatagramChannel, CmSink
{
    private static final ChannelMetadata METADATA = new ChannelMetadata(true, 16);

    /** A joined group: where its datagrams go. */
    private record Group(AddressHandle ah, int qpn, int qkey)
    {
    }

    private final RdmaDatagramChannelConfig config;
    private final Map<InetAddress, Group> groups = new HashMap<>();
    private final Map<InetAddress, ChannelPromise> joining = new HashMap<>();
    private final InetAddress[] addresses = new InetAddress[2];
    private volatile boolean open = true;
    private volatile CmId id;
    private UdEndpoint endpoint;

    /**
     * A datagram channel, bound by {@code Bootstrap.bind}.
     */
    public RdmaDatagramChannel()
    {
        super(null);
        config = new RdmaDatagramChannelConfig(this, this::autoReadCleared);
    }

    @Override
    public RdmaDatagramChannelConfig config()
    {
        return config;
    }

    @Override
    public boolean isOpen()
    {
        return open;
    }

    @Override
    public boolean isActive()
    {
        return open && id != null;
    }

    @Override
    public boolean isConnected()
    {
        return false;
    }

    @Override
    public ChannelMetadata metadata()
    {
        return METADATA;
    }

    @Override
    public InetSocketAddress localAddress()
    {
        return (InetSocketAddress)super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress()
    {
        return null;
    }

    @Override
    protected AbstractUnsafe newUnsafe()
    {
        return new DatagramUnsafe();
    }

    @Override
    UdEndpoint endpoint()
    {
        return endpoint;
    }

    @Override
    protected SocketAddress localAddress0()
    {
        final CmId current = id;
        return current == null ? null : current.localAddress();
    }

    @Override
    protected SocketAddress remoteAddress0()
    {
        return null;
    }

    @Override
    protected void doBind(final SocketAddress localAddress) throws Exception
    {
        if (!(localAddress instanceof InetSocketAddress address))
        {
            throw new UnsupportedAddressTypeException();
        }
        id = CmBinding.bind(handler().devices().eventChannel().createId(this, PortSpace.UDP), address, made ->
            endpoint = new UdEndpoint(registration(), made, config.receiveBuffers(), config.sendBuffers()));
    }

    @Override
    protected void doDisconnect()
    {
        // never connected: there is nothing to undo
    }

    @Override
    protected void doClose()
    {
        open = false;
        for (final ChannelPromise promise : joining.values())
        {
            promise.tryFailure(new ClosedChannelException());
        }
        joining.clear();
        groups.clear();
        if (endpoint != null)
        {
            // the endpoint closes the id, which leaves the groups
            endpoint.close();
        }
        else if (id != null)
        {
            Teardown.closeId(id, false);
        }
    }

    @Override
    public void cmEvent(final CmNotice notice)
    {
        // the id is made on this channel's own loop, so its events arrive there
        toRegistration(notice);
    }

    @Override
    void cmReady(final CmNotice notice)
    {
        if (!open)
        {
            return;
        }
        final InetAddress group = notice.group() == null ? null : notice.group().getAddress();
        final ChannelPromise promise = group == null ? null : joining.remove(group);
        if (notice.type() == CmEventType.MULTICAST_JOIN && promise != null)
        {
            try
            {
                final UdParam ud = notice.udParam();
                groups.put(group, new Group(endpoint.addressHandle(ud.ahAttr()), ud.qpNum(), ud.qkey()));
                promise.trySuccess();
            }
            catch (final RuntimeException ex)
            {
                promise.tryFailure(ex);
            }
        }
        else if (notice.type() == CmEventType.MULTICAST_ERROR)
        {
            final IOException failure = new IOException("joining " + group + " failed: " + notice.description());
            if (promise != null)
            {
                promise.tryFailure(failure);
            }
            else
            {
                // a group joined before is lost (the fabric dropped it)
                groups.remove(group);
                pipeline().fireExceptionCaught(failure);
            }
        }
    }

    @Override
    public ChannelFuture joinGroup(final InetAddress multicastAddress)
    {
        return joinGroup(multicastAddress, newPromise());
    }

    @Override
    public ChannelFuture joinGroup(final InetAddress multicastAddress, final ChannelPromise future)
    {
        return membership(true, multicastAddress, null, future);
    }

    @Override
    public ChannelFuture joinGroup(final InetSocketAddress multicastAddress, final NetworkInterface networkInterface)
    {
        return joinGroup(multicastAddress, networkInterface, newPromise());
    }

    @Override
    public ChannelFuture joinGroup(final InetSocketAddress multicastAddress, final NetworkInterface networkInterface,
        final ChannelPromise future)
    {
        return membership(true, multicastAddress.getAddress(), null, future);
    }

    @Override
    public ChannelFuture joinGroup(final InetAddress multicastAddress, final NetworkInterface networkInterface,
        final InetAddress source)
    {
        return joinGroup(multicastAddress, networkInterface, source, newPromise());
    }

    @Override
    public ChannelFuture joinGroup(final InetAddress multicastAddress, final NetworkInterface networkInterface,
        final InetAddress source, final ChannelPromise future)
    {
        return membership(true, multicastAddress, source, future);
    }

    @Override
    public ChannelFuture leaveGroup(final InetAddress multicastAddress)
    {
        return leaveGroup(multicastAddress, newPromise());
    }

    @Override
    public ChannelFuture leaveGroup(final InetAddress multicastAddress, final ChannelPromise future)
    {
        return membership(false, multicastAddress, null, future);
    }

    @Override
    public ChannelFuture leaveGroup(final InetSocketAddress multicastAddress, final NetworkInterface networkInterface)
    {
        return leaveGroup(multicastAddress, networkInterface, newPromise());
    }

    @Override
    public ChannelFuture leaveGroup(final InetSocketAddress multicastAddress, final NetworkInterface networkInterface,
        final ChannelPromise future)
    {
        return membership(false, multicastAddress.getAddress(), null, future);
    }

    @Override
    public ChannelFuture leaveGroup(final InetAddress multicastAddress, final NetworkInterface networkInterface,
        final InetAddress source)
    {
        return leaveGroup(multicastAddress, networkInterface, source, newPromise());
    }

    @Override
    public ChannelFuture leaveGroup(final InetAddress multicastAddress, final NetworkInterface networkInterface,
        final InetAddress source, final ChannelPromise future)
    {
        return membership(false, multicastAddress, source, future);
    }

    /**
     * Join or leave a group, on the event loop. The network interface is ignored: the bound address chose the
     * device, and so the interface.
     */
    private ChannelFuture membership(final boolean join, final InetAddress group, final InetAddress source,
        final ChannelPromise promise)
    {
        if (!eventLoop().inEventLoop())
        {
            eventLoop().execute(() -> membership(join, group, source, promise));
            return promise;
        }
        if (source != null)
        {
            promise.setFailure(new UnsupportedOperationException("source-specific multicast: rdma_cm joins a " +
                "whole group"));
        }
        else if (join)
        {
            join(group, promise);
        }
        else
        {
            leave(group, promise);
        }
        return promise;
    }

    private void join(final InetAddress group, final ChannelPromise promise)
    {
        if (!isActive())
        {
            promise.setFailure(isOpen() ? new IllegalStateException("bind the channel before joining a group") :
                new ClosedChannelException());
            return;
        }
        if (groups.containsKey(group) || joining.containsKey(group))
        {
            promise.setFailure(new IllegalStateException("already joined to " + group));
            return;
        }
        try
        {
            id.joinMulticast(new InetSocketAddress(group, 0), JoinFlags.FULLMEMBER, group);
            joining.put(group, promise);
        }
        catch (final RuntimeException ex)
        {
            promise.setFailure(ex);
        }
    }

    private void leave(final InetAddress group, final ChannelPromise promise)
    {
        if (groups.remove(group) == null)
        {
            promise.setFailure(new IllegalStateException("not joined to " + group));
            return;
        }
        try
        {
            // the group's address handle stays until the channel closes: a SEND still posted may use it
            id.leaveMulticast(new InetSocketAddress(group, 0));
            promise.setSuccess();
        }
        catch (final RuntimeException ex)
        {
            promise.setFailure(ex);
        }
    }

    @Override
    public ChannelFuture block(final InetAddress multicastAddress, final NetworkInterface networkInterface,
        final InetAddress sourceToBlock)
    {
        return block(multicastAddress, networkInterface, sourceToBlock, newPromise());
    }

    @Override
    public ChannelFuture block(final InetAddress multicastAddress, final NetworkInterface networkInterface,
        final InetAddress sourceToBlock, final ChannelPromise future)
    {
        return future.setFailure(new UnsupportedOperationException("blocking a source: rdma_cm has no source " +
            "filter"));
    }

    @Override
    public ChannelFuture block(final InetAddress multicastAddress, final InetAddress sourceToBlock)
    {
        return block(multicastAddress, sourceToBlock, newPromise());
    }

    @Override
    public ChannelFuture block(final InetAddress multicastAddress, final InetAddress sourceToBlock,
        final ChannelPromise future)
    {
        return block(multicastAddress, null, sourceToBlock, future);
    }

    @Override
    Object readMessage(final int length)
    {
        final ByteBuf buf = config.getAllocator().ioBuffer(Math.max(length, 1));
        endpoint.read(buf, addresses);
        return new DatagramPacket(buf, new InetSocketAddress(addresses[1], localAddress().getPort()),
            new InetSocketAddress(addresses[0], 0));
    }

    @Override
    protected Object filterOutboundMessage(final Object msg)
    {
        if (msg instanceof DatagramPacket)
        {
            return msg;
        }
        if (msg instanceof AddressedEnvelope<?, ?> envelope && envelope.content() instanceof ByteBuf &&
            envelope.recipient() instanceof InetSocketAddress)
        {
            return msg;
        }
        throw new UnsupportedOperationException("an rdma4j datagram channel writes DatagramPackets (or " +
            "AddressedEnvelopes of a ByteBuf to an InetSocketAddress), not " + msg.getClass().getName());
    }

    @Override
    void write(final ChannelOutboundBuffer in)
    {
        Object msg;
        while ((msg = in.current()) != null)
        {
            @SuppressWarnings("unchecked")
            final AddressedEnvelope<ByteBuf, InetSocketAddress> envelope =
                (AddressedEnvelope<ByteBuf, InetSocketAddress>)msg;
            final ByteBuf content = envelope.content();
            final InetSocketAddress recipient = envelope.recipient();
            final Group group = groups.get(recipient.getAddress());
            if (group == null)
            {
                in.remove(new IOException("cannot send to " + recipient + ": only groups this channel has " +
                    "joined are destinations (unicast needs SIDR, not done yet)"));
                continue;
            }
            final int length = content.readableBytes();
            if (length > endpoint.maxDatagram())
            {
                in.remove(new IOException("a datagram of " + length + " bytes is longer than the MTU, " +
                    endpoint.maxDatagram()));
                continue;
            }
            if (!canSend())
            {
                break;
            }
            endpoint.send(content, length, group.ah(), group.qpn(), group.qkey());
            in.remove();
        }
    }

    /** Netty's unsafe for the channel: it does not connect. */
    private final class DatagramUnsafe extends RdmaUnsafe
    {
        @Override
        public void connect(final SocketAddress remoteAddress, final SocketAddress localAddress,
            final ChannelPromise promise)
        {
            safeSetFailure(promise, new UnsupportedOperationException("a connected RDMA datagram channel needs " +
                "SIDR, not done yet: send DatagramPackets to a joined group"));
        }
    }
}
