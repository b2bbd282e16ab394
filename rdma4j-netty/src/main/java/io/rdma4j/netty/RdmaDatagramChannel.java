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
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.QueuePair;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Netty's {@link DatagramChannel} over a UD QP of the connection manager's UDP port space, for multicast:
 * {@link #joinGroup} is {@code rdma_join_multicast} (a full member, its QP attached to the group) and
 * {@link #leaveGroup} is {@code rdma_leave_multicast}. Bind it to a local address first; the address chooses the
 * device.
 * <p>
 * Sending to a group needs no join, as on a socket: the first datagram to a group this channel has not joined
 * makes a send-only join ({@code RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER}: the QP is not attached, so it hears
 * nothing of the group), and it and those after it go once the join completes. At most
 * {@value #MAX_SEND_ONLY_GROUPS} groups are joined that way; past them a send fails until one is left
 * ({@link #leaveGroup}); they are left at close. {@link #joinGroup} of a group joined send-only makes it a full
 * membership.
 * <p>
 * What differs from a UDP socket: a UD packet carries no port, only its source QP number, so a received
 * datagram's sender is a {@link UdAddress}, the sender's IP address and QP number, and a datagram written to it
 * (a reply: {@code new DatagramPacket(content, packet.sender())}) goes to that QP. Any other unicast destination
 * needs the connection manager's SIDR exchange, not done yet, and fails. A datagram is at most the port's MTU. A
 * received datagram's recipient is the group (or this channel's address) with this channel's port. A member
 * receives its own datagrams unless {@code setLoopbackModeDisabled(true)}.
 * <p>
 * A datagram that arrives while every receive buffer holds one not yet read is dropped, as on a full socket
 * buffer ({@link RdmaChannelOption#RECEIVE_BUFFERS}, {@value RdmaDatagramChannelConfig#DEFAULT_RECEIVE_BUFFERS} by
 * default); unlike Netty's UDP channels, which drop silently, this one counts them ({@link #droppedDatagrams()}) and
 * logs at WARNING once a second while they go on.
 * <p>
 * A flush's datagrams go as one chain of SENDs. A datagram to a group this channel is a full member of comes back
 * to it through the device (then passed over if loopback is disabled), and so takes one of its receives until
 * read: while the channel reads, a flush goes on only as far as three quarters of its receives can take those
 * copies, the rest once it has read them, so that a burst written at once (a late timer catching up) loses none
 * of them and leaves room for the other members' datagrams. A channel that does not read is not held back: its
 * copies past its receives are dropped and counted, as a socket's past its buffer.
 */
public class RdmaDatagramChannel extends AbstractRdmaChannel implements DatagramChannel, CmSink
{
    /** Groups a channel joins send-only on first send, at most. */
    public static final int MAX_SEND_ONLY_GROUPS = 16;
    /** Peers (IP addresses) a channel keeps an address handle for to reply to, at most. */
    public static final int MAX_REPLY_PEERS = 256;

    private static final System.Logger LOG = System.getLogger(RdmaDatagramChannel.class.getName());
    private static final ChannelMetadata METADATA = new ChannelMetadata(true, 16);
    /** The QP counter of datagrams that found no receive posted (the soft device's; rxe counts none per QP). */
    private static final String NO_RECEIVE_DROPS = "drop_no_recv_wqe";
    private static final long DROP_CHECK_SECONDS = 1;
    /** The IP TTL of a reply, as Linux's default for unicast. */
    private static final int UNICAST_HOP_LIMIT = 64;

    /** A joined group: where its datagrams go, and whether this channel joined it only to send. */
    private record Group(AddressHandle ah, int qpn, int qkey, boolean sendOnly)
    {
    }

    private final RdmaDatagramChannelConfig config;
    private final Map<InetAddress, Group> groups = new HashMap<>();
    private final Map<InetAddress, ChannelPromise> joining = new HashMap<>();
    /** Groups whose send-only join is under way: the writes to them wait. */
    private final Map<InetAddress, Boolean> sendOnlyJoining = new HashMap<>();
    /** Send-only joins that failed: the next write to the group fails with this. */
    private final Map<InetAddress, IOException> sendOnlyFailed = new HashMap<>();
    private final Map<InetAddress, AddressHandle> replyPeers = new HashMap<>();
    private volatile QueuePair countedQp;
    private volatile long droppedAtClose;
    private volatile boolean countKept;
    private long droppedLogged;
    private ScheduledFuture<?> dropCheck;
    /** The socket addresses of the last datagram read, handed out again while they are the same. */
    private UdAddress lastSender;
    private InetSocketAddress lastRecipient;
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
            endpoint = new UdEndpoint(registration(), made, config.receiveBuffers(), config.sendBuffers(),
                config::skipOwn));
        countedQp = id.qp();
        dropCheck = eventLoop().scheduleAtFixedRate(this::checkDrops, DROP_CHECK_SECONDS, DROP_CHECK_SECONDS,
            TimeUnit.SECONDS);
    }

    /**
     * Datagrams that arrived at this channel while no receive buffer was free, and were dropped: its QP's
     * {@code drop_no_recv_wqe}, read now; safe from any thread, and kept once the channel is closed. A burst that
     * outruns the reader shows here, as a socket's shows in {@code netstat -su}'s receive buffer errors.
     *
     * @return the count; 0 before bind; -1 where the device keeps no per-QP count (the native provider: rxe counts
     *         such drops for the device alone, in {@code Context.counters()}).
     */
    public long droppedDatagrams()
    {
        final QueuePair qp = countedQp;
        if (qp != null)
        {
            return dropped(qp);
        }
        // written before the QP is let go: a reader that found none finds the count kept, if it was closed
        return countKept ? droppedAtClose : 0;
    }

    private static long dropped(final QueuePair qp)
    {
        final Long count = qp.counters().get(NO_RECEIVE_DROPS);
        return count == null ? -1 : count;
    }

    /**
     * @return the QP number peers see this channel's datagrams come from: the port of their {@link UdAddress}; -1
     *         before bind.
     */
    public int qpNum()
    {
        final QueuePair qp = countedQp;
        return qp == null ? -1 : qp.qpNum();
    }

    /** Once a second on the loop: log the drops since the last look, if any, so that a burst is one line. */
    private void checkDrops()
    {
        final QueuePair qp = countedQp;
        if (qp == null)
        {
            return;
        }
        final long dropped = dropped(qp);
        if (dropped > droppedLogged)
        {
            LOG.log(System.Logger.Level.WARNING, () -> "datagram channel " + localAddress() + " dropped " +
                (dropped - droppedLogged) + " datagrams (" + dropped + " in all) that found none of its " +
                config.receiveBuffers() + " receive buffers free: the reader fell behind; raise " +
                "RdmaChannelOption.RECEIVE_BUFFERS or read faster");
            droppedLogged = dropped;
        }
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
        if (dropCheck != null)
        {
            dropCheck.cancel(false);
        }
        final QueuePair qp = countedQp;
        if (qp != null)
        {
            droppedAtClose = dropped(qp);
            countKept = true;
            countedQp = null;
        }
        sendOnlyJoining.clear();
        sendOnlyFailed.clear();
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
        if (group != null && sendOnlyJoining.remove(group) != null)
        {
            sendOnlyJoined(notice, group);
            return;
        }
        final ChannelPromise promise = group == null ? null : joining.remove(group);
        if (notice.type() == CmEventType.MULTICAST_JOIN && promise != null)
        {
            try
            {
                final UdParam ud = notice.udParam();
                groups.put(group, new Group(endpoint.addressHandle(ud.ahAttr()), ud.qpNum(), ud.qkey(), false));
                promise.trySuccess();
            }
            catch (final RuntimeException ex)
            {
                promise.tryFailure(ex);
            }
            // writes to the group waited for the join
            ((RdmaUnsafe)unsafe()).flushAgain();
        }
        else if (notice.type() == CmEventType.MULTICAST_ERROR)
        {
            final IOException failure = new IOException("joining " + group + " failed: " + notice.description());
            if (promise != null)
            {
                promise.tryFailure(failure);
                ((RdmaUnsafe)unsafe()).flushAgain();
            }
            else
            {
                // a group joined before is lost (the fabric dropped it)
                groups.remove(group);
                pipeline().fireExceptionCaught(failure);
            }
        }
    }

    /**
     * A send-only join made by a write has completed or failed: the writes that waited for it go on.
     */
    private void sendOnlyJoined(final CmNotice notice, final InetAddress group)
    {
        if (notice.type() == CmEventType.MULTICAST_JOIN)
        {
            try
            {
                final UdParam ud = notice.udParam();
                groups.put(group, new Group(endpoint.addressHandle(ud.ahAttr()), ud.qpNum(), ud.qkey(), true));
            }
            catch (final RuntimeException ex)
            {
                sendOnlyFailed.put(group, new IOException("cannot send to " + group + ": its send-only join " +
                    "failed: " + ex.getMessage(), ex));
            }
        }
        else if (notice.type() == CmEventType.MULTICAST_ERROR)
        {
            sendOnlyFailed.put(group, new IOException("cannot send to " + group + ": its send-only join failed: " +
                notice.description()));
        }
        ((RdmaUnsafe)unsafe()).flushAgain();
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
        final Group joined = groups.get(group);
        if (sendOnlyJoining.containsKey(group))
        {
            promise.setFailure(new IllegalStateException("a send-only join of " + group + " is under way (a " +
                "datagram was sent to it): join once it is done, after the first send's future"));
            return;
        }
        if (joined != null && !joined.sendOnly() || joining.containsKey(group))
        {
            promise.setFailure(new IllegalStateException("already joined to " + group));
            return;
        }
        try
        {
            if (joined != null)
            {
                // joined to send only: a full member from now on; its sends wait for the full join
                groups.remove(group);
                id.leaveMulticast(new InetSocketAddress(group, 0));
            }
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
            if (sendOnlyJoining.containsKey(group))
            {
                promise.setFailure(new IllegalStateException("a send-only join of " + group + " is under way (a " +
                    "datagram was sent to it): leave once it is done"));
                return;
            }
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
        final int sourceQp = endpoint.read(buf);
        // a burst comes from few senders to one address: their socket addresses are made once, not per datagram
        final InetAddress source = endpoint.source();
        if (lastSender == null || lastSender.getAddress() != source || lastSender.qpNum() != sourceQp)
        {
            lastSender = new UdAddress(source, sourceQp);
        }
        final InetAddress destination = endpoint.destination();
        if (lastRecipient == null || lastRecipient.getAddress() != destination)
        {
            lastRecipient = new InetSocketAddress(destination, localAddress().getPort());
        }
        return new DatagramPacket(buf, lastRecipient, lastSender);
    }

    @Override
    boolean delivered()
    {
        // the receives read go back in one chain; and the writes that waited for them (the copies of a group's
        // datagrams this channel sent) go on
        endpoint.postReadReceives();
        resumeWritesAfterRead();
        return true;
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
        try
        {
            stageWrites(in);
        }
        finally
        {
            // the flush's datagrams leave as one chain: one system call for a burst on the software device
            endpoint.postDatagrams();
        }
    }

    /**
     * Stage a SEND for each datagram of the outbound buffer, in order, as far as the slots allow and, for a group
     * this channel is a full member of, as far as its receives can take the copies the device gives it back; fail
     * those that cannot go, and leave the rest waiting for a join.
     */
    private void stageWrites(final ChannelOutboundBuffer in)
    {
        // the copies of a group's datagrams that this channel may take in now, leaving a quarter of its receives
        // for other members' datagrams; only while it reads (one that does not read drops them, as before)
        final boolean paced = endpoint.skipsOwn() || readWanted();
        int loopBudget = endpoint.receivesFree() - endpoint.receiveCount() / 4;
        Object msg;
        while ((msg = in.current()) != null)
        {
            @SuppressWarnings("unchecked")
            final AddressedEnvelope<ByteBuf, InetSocketAddress> envelope =
                (AddressedEnvelope<ByteBuf, InetSocketAddress>)msg;
            final ByteBuf content = envelope.content();
            final InetSocketAddress recipient = envelope.recipient();
            final InetAddress address = recipient.getAddress();
            AddressHandle ah;
            final int qpn;
            final int qkey;
            boolean loopsBack = false;
            if (recipient instanceof UdAddress peer)
            {
                ah = replyPeers.get(address);
                if (ah == null)
                {
                    if (replyPeers.size() >= MAX_REPLY_PEERS)
                    {
                        in.remove(new IOException("cannot send to " + recipient + ": this channel has address " +
                            "handles for " + MAX_REPLY_PEERS + " peers, the most it keeps"));
                        continue;
                    }
                    ah = endpoint.addressHandle(AhAttr.global(Gid.fromInet(address), UNICAST_HOP_LIMIT));
                    replyPeers.put(address, ah);
                }
                qpn = peer.qpNum();
                qkey = RdmaCm.UDP_QKEY;
            }
            else if (address != null && address.isMulticastAddress())
            {
                final Group group = groups.get(address);
                if (group == null)
                {
                    final IOException failed = sendOnlyFailed.remove(address);
                    if (failed != null)
                    {
                        in.remove(failed);
                        continue;
                    }
                    if (joining.containsKey(address) || sendOnlyJoining.containsKey(address) ||
                        joinToSend(in, recipient))
                    {
                        // this and the rest go, in order, once the join is done
                        return;
                    }
                    // the join could not start: the write failed
                    continue;
                }
                ah = group.ah();
                qpn = group.qpn();
                qkey = group.qkey();
                // a full member's QP is attached: the device gives it a copy, which takes one of its receives
                loopsBack = !group.sendOnly();
            }
            else
            {
                in.remove(new IOException("cannot send to " + recipient + ": a unicast destination is a datagram's " +
                    "sender() (a UdAddress: its QP number); any other needs SIDR, not done yet"));
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
            if (loopsBack && paced && loopBudget <= 0)
            {
                // the rest once this channel has taken the copies in: after its next read, or the SENDs' completion
                blockWritesUntilRead();
                break;
            }
            endpoint.stageDatagram(content, length, ah, qpn, qkey, loopsBack);
            if (loopsBack)
            {
                loopBudget--;
            }
            in.remove();
        }
    }

    /**
     * Start a send-only join of a group the head of the outbound buffer is for.
     *
     * @return true if the join is under way (the write waits for it); false if the write failed, removed.
     */
    private boolean joinToSend(final ChannelOutboundBuffer in, final InetSocketAddress recipient)
    {
        final InetAddress group = recipient.getAddress();
        final long sendOnly = groups.values().stream().filter(Group::sendOnly).count() + sendOnlyJoining.size();
        if (sendOnly >= MAX_SEND_ONLY_GROUPS)
        {
            in.remove(new IOException("cannot send to " + recipient + ": this channel has joined " +
                MAX_SEND_ONLY_GROUPS + " groups send-only on first send, the most it joins that way; leave one " +
                "(leaveGroup) or join the group first"));
            return false;
        }
        try
        {
            id.joinMulticast(new InetSocketAddress(group, 0), JoinFlags.SENDONLY_FULLMEMBER, group);
        }
        catch (final RuntimeException ex)
        {
            in.remove(new IOException("cannot send to " + recipient + ": a send-only join failed: " +
                ex.getMessage(), ex));
            return false;
        }
        sendOnlyJoining.put(group, Boolean.TRUE);
        return true;
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
