package io.rdma4j.rdmacore.cm;

import io.rdma4j.spi.Counted;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.UdParam;
import io.rdma4j.rdmacore.SetMembership;
import io.rdma4j.rdmacore.Libc;
import io.rdma4j.rdmacore.NativeErrors;
import io.rdma4j.rdmacore.Structs;
import io.rdma4j.rdmacore.abi.RdmaCmEvent;
import io.rdma4j.rdmacore.abi.RdmaCmId;
import io.rdma4j.rdmacore.abi.RdmaConnParam;
import io.rdma4j.rdmacore.abi.RdmaUdParam;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WaitDriver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * librdmacm's event channel ({@code struct rdma_event_channel}). Its file descriptor is non-blocking and a
 * thread waiting for an event polls it in short slices (seeing an interrupt soon), so no thread is ever
 * parked inside {@code rdma_get_cm_event} and several threads may wait on one channel. Each event is copied
 * into a {@link NativeCmEvent} at once; the C event stays allocated until it is acknowledged, as librdmacm
 * requires. In a {@link io.rdma4j.verbs.WaitSet} its descriptor is what the set's thread sleeps on
 * ({@link io.rdma4j.rdmacore.DescriptorWait}), beside any other member's.
 */
public final class NativeEventChannel implements EventChannel
{
    private static final int EAGAIN = 11;

    private final MemorySegment channel;
    private final int fd;
    private final Map<Long, NativeCmId> ids = new ConcurrentHashMap<>();
    private final Map<Long, NativeCmId.Join> joins = new ConcurrentHashMap<>();
    private final AtomicLong joinKeys = new AtomicLong();
    private volatile boolean closed;
    /** A WaitSet's watcher (told at the close) and the set's wait in poll. */
    private final SetMembership membership = new SetMembership("the event channel");

    private NativeEventChannel(final MemorySegment channel)
    {
        this.channel = channel.reinterpret(ValueLayout.JAVA_INT.byteSize());
        this.fd = this.channel.get(ValueLayout.JAVA_INT, 0);
        Libc.setNonBlocking(fd);
    }

    /**
     * @return why librdmacm cannot be used (not installed, or too old), or null when it can.
     */
    public static String unavailableReason()
    {
        return Rdmacm.unavailableReason();
    }

    /**
     * Create a channel ({@code rdma_create_event_channel}).
     *
     * @return the channel.
     * @throws RdmaException ENOSYS without librdmacm, or the errno of the call (e.g. ENODEV without rdma_ucm).
     */
    public static NativeEventChannel create()
    {
        final String reason = Rdmacm.unavailableReason();
        if (reason != null)
        {
            throw new RdmaException(Errno.ENOSYS, "the native connection manager is unavailable: " + reason);
        }
        return new NativeEventChannel(Rdmacm.pointer("rdma_create_event_channel", "rdma_create_event_channel"));
    }

    /**
     * @param address a local IP address.
     * @return true if librdmacm binds an id to it, i.e. an RDMA device has it; false without librdmacm.
     */
    public static boolean canBind(final InetAddress address)
    {
        if (Rdmacm.unavailableReason() != null)
        {
            return false;
        }
        try (NativeEventChannel probe = create())
        {
            final NativeCmId id = probe.createId(null, PortSpace.TCP);
            try
            {
                id.bindAddr(new InetSocketAddress(address, 0));
                return true;
            }
            catch (final RdmaException ex)
            {
                return false;
            }
            finally
            {
                id.close();
            }
        }
        catch (final RdmaException ex)
        {
            // no rdma_ucm, or no device: nothing of librdmacm's owns the address
            return false;
        }
    }

    MemorySegment address()
    {
        return channel;
    }

    @Override
    public NativeCmId createId(final Object context, final PortSpace portSpace)
    {
        RdmaException.check(!closed, Errno.EINVAL, "createId: the event channel is closed");
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            Rdmacm.check("rdma_create_id in port space " + portSpace, "rdma_create_id", channel, out,
                MemorySegment.NULL, portSpace.value());
            return register(out.get(ValueLayout.ADDRESS, 0), context, portSpace);
        }
    }

    private NativeCmId register(final MemorySegment id, final Object context, final PortSpace portSpace)
    {
        final NativeCmId wrapped = new NativeCmId(this, id.reinterpret(RdmaCmId.LAYOUT.byteSize()), context,
            portSpace);
        ids.put(id.address(), wrapped);
        return wrapped;
    }

    void forget(final NativeCmId id)
    {
        ids.remove(id.address().address());
    }

    long addJoin(final NativeCmId.Join join)
    {
        final long key = joinKeys.incrementAndGet();
        joins.put(key, join);
        return key;
    }

    void removeJoin(final long key)
    {
        joins.remove(key);
    }

    @Override
    public NativeCmEvent getEvent(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        final long deadline = Libc.deadline(timeout, unit);
        while (true)
        {
            RdmaException.check(!closed, Errno.EINVAL, "getEvent: the event channel is closed");
            final NativeCmEvent event = next();
            if (event != null)
            {
                return event;
            }
            if (!Libc.awaitReadable(fd, deadline))
            {
                return null;
            }
        }
    }

    // one event if the descriptor has one; events for ids this channel does not know are acknowledged here
    private NativeCmEvent next()
    {
        while (true)
        {
            final MemorySegment raw;
            try (Arena arena = Arena.ofConfined())
            {
                final MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
                final int errno = Rdmacm.errno("rdma_get_cm_event", channel, out);
                if (errno == EAGAIN)
                {
                    return null;
                }
                if (errno != 0)
                {
                    throw NativeErrors.exception(errno, "rdma_get_cm_event");
                }
                raw = out.get(ValueLayout.ADDRESS, 0).reinterpret(RdmaCmEvent.LAYOUT.byteSize());
            }
            final NativeCmEvent event = decode(raw);
            if (event != null)
            {
                return event;
            }
            Rdmacm.check("rdma_ack_cm_event of an event for no known id", "rdma_ack_cm_event", raw);
        }
    }

    private NativeCmEvent decode(final MemorySegment raw)
    {
        final int code = raw.get(ValueLayout.JAVA_INT, RdmaCmEvent.EVENT);
        final CmEventType[] types = CmEventType.values();
        if (code < 0 || code >= types.length)
        {
            return null;
        }
        final CmEventType type = types[code];
        final int status = raw.get(ValueLayout.JAVA_INT, RdmaCmEvent.STATUS);
        final MemorySegment idPointer = raw.get(ValueLayout.ADDRESS, RdmaCmEvent.ID);
        NativeCmId id = ids.get(idPointer.address());
        NativeCmId listener = null;
        if (type == CmEventType.CONNECT_REQUEST)
        {
            listener = ids.get(raw.get(ValueLayout.ADDRESS, RdmaCmEvent.LISTEN_ID).address());
            if (listener == null)
            {
                return null;
            }
            // librdmacm made a new id for the request, on this channel, with the listener's port space
            id = register(idPointer, listener.context(), listener.portSpace());
        }
        if (id == null)
        {
            return null;
        }
        final MemorySegment ud = raw.asSlice(RdmaCmEvent.UD, RdmaUdParam.LAYOUT.byteSize());
        if (type == CmEventType.MULTICAST_JOIN || type == CmEventType.MULTICAST_ERROR)
        {
            // librdmacm hands the join's context pointer back in private_data: ours is the join's key
            final NativeCmId.Join join = joins.get(ud.get(ValueLayout.ADDRESS, RdmaUdParam.PRIVATE_DATA).address());
            final UdParam param = udParam(ud, false);
            if (join != null && type == CmEventType.MULTICAST_JOIN && status == 0)
            {
                id.joined(join, param);
            }
            return new NativeCmEvent(raw, type, id, null, status, null, param,
                join == null ? null : join.context(), join == null ? null : join.group());
        }
        final boolean datagram = id.portSpace() == PortSpace.UDP || id.portSpace() == PortSpace.IPOIB;
        final boolean carriesParam = switch (type)
        {
            case CONNECT_REQUEST, CONNECT_RESPONSE, ESTABLISHED, REJECTED, UNREACHABLE, CONNECT_ERROR,
                DISCONNECTED -> true;
            default -> false;
        };
        if (!carriesParam)
        {
            return new NativeCmEvent(raw, type, id, listener, status, null, null, null, null);
        }
        if (datagram)
        {
            return new NativeCmEvent(raw, type, id, listener, status, null, udParam(ud, true), null, null);
        }
        return new NativeCmEvent(raw, type, id, listener, status,
            connParam(raw.asSlice(RdmaCmEvent.CONN, RdmaConnParam.LAYOUT.byteSize())), null, null, null);
    }

    private static UdParam udParam(final MemorySegment ud, final boolean privateData)
    {
        return new UdParam(privateData ? bytes(ud, RdmaUdParam.PRIVATE_DATA, RdmaUdParam.PRIVATE_DATA_LEN) : null,
            Structs.readAhAttr(ud.asSlice(RdmaUdParam.AH_ATTR)), ud.get(ValueLayout.JAVA_INT, RdmaUdParam.QP_NUM),
            ud.get(ValueLayout.JAVA_INT, RdmaUdParam.QKEY));
    }

    private static ConnParam connParam(final MemorySegment conn)
    {
        return new ConnParam(bytes(conn, RdmaConnParam.PRIVATE_DATA, RdmaConnParam.PRIVATE_DATA_LEN),
            u8(conn, RdmaConnParam.RESPONDER_RESOURCES), u8(conn, RdmaConnParam.INITIATOR_DEPTH),
            u8(conn, RdmaConnParam.FLOW_CONTROL), u8(conn, RdmaConnParam.RETRY_COUNT),
            u8(conn, RdmaConnParam.RNR_RETRY_COUNT), u8(conn, RdmaConnParam.SRQ) != 0,
            conn.get(ValueLayout.JAVA_INT, RdmaConnParam.QP_NUM));
    }

    private static byte[] bytes(final MemorySegment struct, final long pointerOffset, final long lengthOffset)
    {
        final int length = u8(struct, lengthOffset);
        final MemorySegment data = struct.get(ValueLayout.ADDRESS, pointerOffset);
        if (length == 0 || data.equals(MemorySegment.NULL))
        {
            return null;
        }
        return data.reinterpret(length).toArray(ValueLayout.JAVA_BYTE);
    }

    private static int u8(final MemorySegment segment, final long offset)
    {
        return Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, offset));
    }

    /**
     * @return the ids made on this channel and not yet destroyed.
     */
    public int idCount()
    {
        return ids.size();
    }

    /**
     * @return whether {@code poll} finds the descriptor readable now: an event is waiting (or one for an id this
     *     channel does not know, which {@link #getEvent} acknowledges and passes over).
     */
    @Override
    public boolean isReady()
    {
        return !closed && membership.isReady(fd);
    }

    @Override
    public void watch(final Runnable setWatcher)
    {
        membership.watch(setWatcher);
    }

    @Override
    public int descriptor()
    {
        return closed ? -1 : fd;
    }

    /**
     * @return the set's sleep in {@code poll(2)} over this and the set's other descriptors; null once closed.
     */
    @Override
    public WaitDriver waitDriver()
    {
        return membership.driver();
    }

    /**
     * @throws RdmaException EBUSY while ids made on it are not destroyed.
     */
    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            if (!ids.isEmpty())
            {
                throw new RdmaException(Errno.EBUSY, "the event channel still has " +
                    Counted.of(ids.size(), "id") + ": destroy them first");
            }
            closed = true;
            Rdmacm.call("rdma_destroy_event_channel", channel);
        }
        membership.close();
    }
}
