package io.rdma4j.rdmacore;

import io.rdma4j.rdmacore.abi.IbvAsyncEvent;
import io.rdma4j.rdmacore.abi.IbvContext;
import io.rdma4j.rdmacore.abi.IbvDeviceAttr;
import io.rdma4j.rdmacore.abi.IbvGid;
import io.rdma4j.rdmacore.abi.IbvPortAttr;
import io.rdma4j.verbs.AsyncEvent;
import io.rdma4j.verbs.AsyncEventType;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.DeviceAttr;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.PortAttr;
import io.rdma4j.verbs.PortState;
import io.rdma4j.verbs.RdmaException;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static io.rdma4j.rdmacore.abi.CLayout.offset;

/**
 * An open device ({@code struct ibv_context *}). Its ops table is read once here, and every QP, CQ and SRQ
 * made on it calls the provider's data-path functions from it. The CQs, QPs and SRQs are also registered by
 * their native address so that a completion event or an async event, which name the native object, finds
 * the Java one.
 */
public final class NativeContext implements Context
{
    private static final AsyncEventType[] ASYNC_TYPES = AsyncEventType.values();
    private static final long EVENT_TYPE = offset(IbvAsyncEvent.LAYOUT, "event_type");
    private static final long EVENT_PORT = offset(IbvAsyncEvent.LAYOUT, "element", "port_num");
    private static final long EVENT_ELEMENT = offset(IbvAsyncEvent.LAYOUT, "element");

    private final NativeDevice device;
    private final MemorySegment context;
    private final boolean owned;
    private final OpsTable ops;
    private final int asyncFd;
    private final Map<Long, Object> objects = new ConcurrentHashMap<>();
    private int children;
    private volatile boolean closed;

    private NativeContext(final NativeDevice device, final MemorySegment context, final boolean owned)
    {
        this.device = device;
        this.context = context.reinterpret(IbvContext.LAYOUT.byteSize());
        this.owned = owned;
        this.ops = new OpsTable(this.context);
        this.asyncFd = this.context.get(ValueLayout.JAVA_INT, IbvContext.ASYNC_FD);
        if (owned)
        {
            // several threads may wait for async events: the one that loses a race must not block in read()
            Libc.setNonBlocking(asyncFd);
        }
    }

    static NativeContext open(final NativeDevice device)
    {
        final MemorySegment context = Ibverbs.pointer("ibv_open_device on " + device.name(), "ibv_open_device",
            device.pointer());
        return new NativeContext(device, context, true);
    }

    /**
     * Wrap a context that someone else opened and will close, such as the one librdmacm opens for each device
     * and hands out in {@code rdma_cm_id->verbs}. Closing the wrapper does not close the context.
     *
     * @param context a {@code struct ibv_context *}.
     * @return the wrapper; its device is the listed native device of the same name.
     */
    public static NativeContext adopt(final MemorySegment context)
    {
        final MemorySegment ctx = context.reinterpret(IbvContext.LAYOUT.byteSize());
        final MemorySegment ibvDevice = ctx.get(ValueLayout.ADDRESS, offset(IbvContext.LAYOUT, "device"));
        final String name = ((MemorySegment)Ibverbs.call("ibv_get_device_name", ibvDevice))
            .reinterpret(Long.MAX_VALUE).getString(0);
        NativeDevice device = null;
        for (final var listed : NativeDevices.list())
        {
            if (listed.name().equals(name))
            {
                device = (NativeDevice)listed;
            }
        }
        if (device == null)
        {
            final long guid = Long.reverseBytes((long)Ibverbs.call("ibv_get_device_guid", ibvDevice));
            device = new NativeDevice(name, guid, ibvDevice);
        }
        return new NativeContext(device, ctx, false);
    }

    /**
     * @return the {@code struct ibv_context *}.
     */
    public MemorySegment address()
    {
        return context;
    }

    OpsTable ops()
    {
        return ops;
    }

    @Override
    public NativeDevice device()
    {
        return device;
    }

    @Override
    public DeviceAttr queryDevice()
    {
        checkOpen();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment a = arena.allocate(IbvDeviceAttr.LAYOUT);
            Ibverbs.check("ibv_query_device on " + device.name(), "ibv_query_device", context, a);
            final var l = IbvDeviceAttr.LAYOUT;
            return new DeviceAttr(a.getString(0), Long.reverseBytes(a.get(ValueLayout.JAVA_LONG, offset(l, "node_guid"))),
                Long.reverseBytes(a.get(ValueLayout.JAVA_LONG, offset(l, "sys_image_guid"))),
                a.get(ValueLayout.JAVA_LONG, offset(l, "max_mr_size")),
                a.get(ValueLayout.JAVA_LONG, offset(l, "page_size_cap")), i32(a, l, "vendor_id"),
                i32(a, l, "vendor_part_id"), i32(a, l, "hw_ver"), i32(a, l, "max_qp"), i32(a, l, "max_qp_wr"),
                Integer.toUnsignedLong(i32(a, l, "device_cap_flags")), i32(a, l, "max_sge"), i32(a, l, "max_sge_rd"),
                i32(a, l, "max_cq"), i32(a, l, "max_cqe"), i32(a, l, "max_mr"), i32(a, l, "max_pd"),
                i32(a, l, "max_qp_rd_atom"), i32(a, l, "max_ee_rd_atom"), i32(a, l, "max_res_rd_atom"),
                i32(a, l, "max_qp_init_rd_atom"), i32(a, l, "max_ee_init_rd_atom"), i32(a, l, "atomic_cap"),
                i32(a, l, "max_ee"), i32(a, l, "max_rdd"), i32(a, l, "max_mw"), i32(a, l, "max_raw_ipv6_qp"),
                i32(a, l, "max_raw_ethy_qp"), i32(a, l, "max_mcast_grp"), i32(a, l, "max_mcast_qp_attach"),
                i32(a, l, "max_total_mcast_qp_attach"), i32(a, l, "max_ah"), i32(a, l, "max_fmr"),
                i32(a, l, "max_map_per_fmr"), i32(a, l, "max_srq"), i32(a, l, "max_srq_wr"), i32(a, l, "max_srq_sge"),
                u16(a, l, "max_pkeys"), u8(a, l, "local_ca_ack_delay"), u8(a, l, "phys_port_cnt"),
                // libibverbs's device attributes have no inline limit; ibv_create_qp reports the granted one
                0);
        }
    }

    @Override
    public PortAttr queryPort(final int portNum)
    {
        checkOpen();
        checkPortNumber(portNum);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment a = arena.allocate(IbvPortAttr.LAYOUT);
            Ibverbs.check("ibv_query_port on " + device.name() + " port " + portNum, "ibv_query_port", context,
                (byte)portNum, a);
            final var l = IbvPortAttr.LAYOUT;
            final int linkLayer = u8(a, l, "link_layer");
            return new PortAttr(portState(i32(a, l, "state")), mtu(i32(a, l, "max_mtu")), mtu(i32(a, l, "active_mtu")),
                i32(a, l, "gid_tbl_len"), Integer.toUnsignedLong(i32(a, l, "port_cap_flags")),
                Integer.toUnsignedLong(i32(a, l, "max_msg_sz")), i32(a, l, "bad_pkey_cntr"),
                i32(a, l, "qkey_viol_cntr"), u16(a, l, "pkey_tbl_len"), u16(a, l, "lid"), u16(a, l, "sm_lid"),
                u8(a, l, "lmc"), u8(a, l, "max_vl_num"), u8(a, l, "sm_sl"), u8(a, l, "subnet_timeout"),
                u8(a, l, "init_type_reply"), u8(a, l, "active_width"), u8(a, l, "active_speed"),
                u8(a, l, "phys_state"), linkLayer == 2 ? "Ethernet" : linkLayer == 1 ? "InfiniBand" : "Unspecified");
        }
    }

    @Override
    public Gid queryGid(final int portNum, final int index)
    {
        checkOpen();
        checkPortNumber(portNum);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment gid = arena.allocate(IbvGid.LAYOUT);
            Ibverbs.check("ibv_query_gid on " + device.name() + " port " + portNum + " index " + index,
                "ibv_query_gid", context, (byte)portNum, index, gid);
            return Gid.of(gid.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Override
    public NativePd allocPd()
    {
        checkOpen();
        final MemorySegment pd = Ibverbs.pointer("ibv_alloc_pd on " + device.name(), "ibv_alloc_pd", context);
        retain();
        return new NativePd(this, pd);
    }

    @Override
    public NativeCompChannel createCompChannel()
    {
        checkOpen();
        final MemorySegment channel = Ibverbs.pointer("ibv_create_comp_channel on " + device.name(),
            "ibv_create_comp_channel", context);
        retain();
        return new NativeCompChannel(this, channel);
    }

    @Override
    public NativeCq createCq(final int cqe, final CompletionChannel channel, final int compVector)
    {
        checkOpen();
        RdmaException.check(cqe >= 1, Errno.EINVAL, "a CQ needs at least 1 entry, not " + cqe);
        final NativeCompChannel nativeChannel = channel == null ? null : owned(channel, NativeCompChannel.class,
            "completion channel");
        final MemorySegment cq = Ibverbs.pointer("ibv_create_cq of " + cqe + " entries on " + device.name(),
            "ibv_create_cq", context, cqe, MemorySegment.NULL,
            nativeChannel == null ? MemorySegment.NULL : nativeChannel.address(), compVector);
        retain();
        final NativeCq created = new NativeCq(this, cq, nativeChannel);
        register(cq, created);
        if (nativeChannel != null)
        {
            nativeChannel.addCq();
        }
        return created;
    }

    @Override
    public AsyncEvent getAsyncEvent(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        checkOpen();
        final long deadline = Libc.deadline(timeout, unit);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment event = arena.allocate(IbvAsyncEvent.LAYOUT);
            while (Libc.awaitReadable(asyncFd, deadline))
            {
                final int errno = Ibverbs.errno("ibv_get_async_event", context, event);
                if (errno == Errno.EAGAIN.code())
                {
                    continue;
                }
                if (errno != 0)
                {
                    throw NativeErrors.exception(errno, "ibv_get_async_event on " + device.name());
                }
                final AsyncEvent result = translate(event);
                // acknowledged at once: what Java keeps is a copy, and destroying a QP or CQ waits for every ack
                Ibverbs.call("ibv_ack_async_event", event);
                if (result != null)
                {
                    return result;
                }
            }
            return null;
        }
    }

    private AsyncEvent translate(final MemorySegment event)
    {
        final int type = event.get(ValueLayout.JAVA_INT, EVENT_TYPE);
        if (type < 0 || type >= ASYNC_TYPES.length)
        {
            // IBV_EVENT_WQ_FATAL and later: work queues are not part of this API
            return null;
        }
        final AsyncEventType eventType = ASYNC_TYPES[type];
        final long element = event.get(ValueLayout.JAVA_LONG, EVENT_ELEMENT);
        return switch (eventType)
        {
            case CQ_ERR -> new AsyncEvent(eventType, null, (CompletionQueue)objects.get(element), null, 0);
            case QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR,
                QP_LAST_WQE_REACHED -> new AsyncEvent(eventType, (NativeQp)objects.get(element), null, null, 0);
            case SRQ_ERR, SRQ_LIMIT_REACHED ->
                new AsyncEvent(eventType, null, null, (NativeSrq)objects.get(element), 0);
            default -> new AsyncEvent(eventType, null, null, null, event.get(ValueLayout.JAVA_INT, EVENT_PORT));
        };
    }

    /**
     * {@inheritDoc}
     * <p>
     * The native counters are the kernel's: every file of {@code /sys/class/infiniband/<dev>/ports/<n>/hw_counters}
     * (rxe's {@code sent_pkts}, {@code rcvd_pkts}, {@code duplicate_request}, ...), named {@code port<n>.<file>}.
     */
    @Override
    public Map<String, Long> counters()
    {
        final Map<String, Long> counters = new TreeMap<>();
        final Path ports = Path.of("/sys/class/infiniband", device.name(), "ports");
        if (!Files.isDirectory(ports))
        {
            return counters;
        }
        try (DirectoryStream<Path> portDirs = Files.newDirectoryStream(ports))
        {
            for (final Path port : portDirs)
            {
                final Path dir = port.resolve("hw_counters");
                if (!Files.isDirectory(dir))
                {
                    continue;
                }
                try (DirectoryStream<Path> files = Files.newDirectoryStream(dir))
                {
                    for (final Path file : files)
                    {
                        readCounter(counters, "port" + port.getFileName() + '.' + file.getFileName(), file);
                    }
                }
            }
        }
        catch (final IOException ex)
        {
            throw new RdmaException(Errno.EIO, "cannot read the counters of " + device.name() + ": " + ex.getMessage(),
                ex);
        }
        return counters;
    }

    private static void readCounter(final Map<String, Long> counters, final String name, final Path file)
    {
        try
        {
            counters.put(name, Long.parseLong(Files.readString(file).trim()));
        }
        catch (final IOException | NumberFormatException ex)
        {
            // a counter the kernel cannot read now (some are write-only or absent on a port) is left out
        }
    }

    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                throw new RdmaException(Errno.EINVAL, "the device context of " + device.name() + " is already closed");
            }
            if (children > 0)
            {
                throw new RdmaException(Errno.EBUSY, "the device context of " + device.name() + " still has " +
                    children + " PDs, CQs or completion channels");
            }
            closed = true;
        }
        if (owned)
        {
            Ibverbs.check("ibv_close_device on " + device.name(), "ibv_close_device", context);
        }
    }

    synchronized void retain()
    {
        children++;
    }

    synchronized void release()
    {
        children--;
    }

    void register(final MemorySegment address, final Object object)
    {
        objects.put(address.address(), object);
    }

    void unregister(final MemorySegment address)
    {
        objects.remove(address.address());
    }

    Object lookup(final long address)
    {
        return objects.get(address);
    }

    void checkOpen()
    {
        if (closed)
        {
            throw new RdmaException(Errno.EINVAL, "the device context of " + device.name() + " is closed");
        }
    }

    /**
     * @param object an API object the caller passed.
     * @param type the native class it must be.
     * @param what its name for the sentence.
     * @param <T> the type.
     * @return it, cast.
     * @throws RdmaException EINVAL if it belongs to another provider or another context.
     */
    <T> T owned(final Object object, final Class<T> type, final String what)
    {
        if (!type.isInstance(object))
        {
            throw new RdmaException(Errno.EINVAL, "the " + what + " is not one of the native provider's (" +
                object.getClass().getSimpleName() + ')');
        }
        return type.cast(object);
    }

    private void checkPortNumber(final int portNum)
    {
        if (portNum < 1 || portNum > 255)
        {
            throw new RdmaException(Errno.EINVAL, "port " + portNum + " is outside 1..255");
        }
    }

    private static PortState portState(final int value)
    {
        final PortState[] states = PortState.values();
        return value >= 0 && value < states.length ? states[value] : PortState.NOP;
    }

    private static Mtu mtu(final int value)
    {
        return value >= 1 && value <= 5 ? Mtu.fromValue(value) : Mtu.MTU_256;
    }

    private static int i32(final MemorySegment segment, final java.lang.foreign.GroupLayout layout, final String name)
    {
        return segment.get(ValueLayout.JAVA_INT, offset(layout, name));
    }

    private static int u16(final MemorySegment segment, final java.lang.foreign.GroupLayout layout, final String name)
    {
        return Short.toUnsignedInt(segment.get(ValueLayout.JAVA_SHORT, offset(layout, name)));
    }

    private static int u8(final MemorySegment segment, final java.lang.foreign.GroupLayout layout, final String name)
    {
        return Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, offset(layout, name)));
    }

    @Override
    public String toString()
    {
        return "NativeContext{" + device.name() + '}';
    }
}
