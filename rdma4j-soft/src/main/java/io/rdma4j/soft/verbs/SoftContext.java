package io.rdma4j.soft.verbs;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.verbs.DeviceLimits;
import io.rdma4j.verbs.AsyncEvent;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.DeviceAttr;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.PortAttr;
import io.rdma4j.verbs.PortState;
import io.rdma4j.verbs.ProgressMode;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.RdmaException;

import java.util.function.Consumer;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A context on a software device: the parent of PDs, CQs and channels, which it counts so that
 * closing it early is EBUSY.
 */
public final class SoftContext implements Context
{
    /** The counter of datagrams dropped on purpose by an injected-loss link. */
    public static final String DROP_INJECTED = "drop_injected";

    /**
     * IBV_DEVICE_* bits the software device can honestly claim: BAD_QKEY_CNTR, UD_AV_PORT_ENFORCE,
     * SYS_IMAGE_GUID, RC_RNR_NAK_GEN. (rxe also claims memory windows and SRQ resize, which we lack.)
     */
    static final long DEVICE_CAP_FLAGS = 0x4L | 0x40L | 0x800L | 0x1000L;
    /** IBV_PORT_CM_SUP, as rxe reports. */
    static final long PORT_CAP_FLAGS = 0x00010000L;

    private final Device device;
    private final VerbsDevice engine;
    private final Consumer<SoftContext> onClose;
    private int children;
    private boolean closed;

    /**
     * @param device  the device it is a context on.
     * @param engine  the device's running engine.
     * @param onClose told when the context closes, once, with no children left: the device closes its
     *                engine with its last context.
     */
    public SoftContext(final Device device, final VerbsDevice engine, final Consumer<SoftContext> onClose)
    {
        this.device = device;
        this.engine = engine;
        this.onClose = onClose;
    }

    @Override
    public Device device()
    {
        return device;
    }

    @Override
    public ProgressMode progressMode()
    {
        return engine.pollsInline() ? ProgressMode.POLLING :
            engine.waitsInline() ? ProgressMode.WAITING : ProgressMode.THREAD;
    }

    /**
     * @return the engine behind this context.
     */
    public VerbsDevice engine()
    {
        return engine;
    }

    @Override
    public DeviceAttr queryDevice()
    {
        checkOpen();
        final DeviceLimits l = engine.limits();
        return new DeviceAttr("0.1.0", device.guid(), device.guid(), -1L, 0xFFFFF000L, 0xFFFFFF, 0, 0, l.maxQp(),
            l.maxQpWr(), DEVICE_CAP_FLAGS, l.maxSge(), l.maxSgeRd(), l.maxCq(), l.maxCqe(), l.maxMr(), l.maxPd(),
            l.maxQpRdAtom(), 0, 0x3F000, l.maxQpInitRdAtom(), 0, 1, 0, 0, 0, 0, 0, l.maxMcastGrp(), l.maxMcastQpAttach(),
            l.maxTotalMcastQpAttach(), l.maxAh(), 0, 0, l.maxSrq(), l.maxSrqWr(), l.maxSrqSge(), 64, 15, 1,
            l.maxInlineData());
    }

    @Override
    public PortAttr queryPort(final int portNum)
    {
        checkOpen();
        checkPort(portNum);
        return new PortAttr(PortState.ACTIVE, Mtu.MTU_4096, engine.activeMtu(), 1024, PORT_CAP_FLAGS,
            engine.limits().maxMsgSize(), 0, (int)engine.counters().get(SoftCounter.DROP_QKEY_VIOLATION), 1, 0, 0, 0,
            1, 0, 0, 0, 1, 1, 5, "Ethernet");
    }

    @Override
    public Gid queryGid(final int portNum, final int index)
    {
        checkOpen();
        checkPort(portNum);
        if (index == 0)
        {
            return engine.gid();
        }
        if (index < 0 || index >= 1024)
        {
            throw new RdmaException(Errno.EINVAL, "GID index " + index + " is outside the table (0..1023)");
        }
        return Gid.ZERO;
    }

    private static void checkPort(final int portNum)
    {
        if (portNum != 1)
        {
            throw new RdmaException(Errno.EINVAL, "port " + portNum + " does not exist: the device has port 1");
        }
    }

    @Override
    public ProtectionDomain allocPd()
    {
        checkOpen();
        final SoftPd pd = new SoftPd(this);
        adopt();
        return pd;
    }

    @Override
    public CompletionChannel createCompChannel()
    {
        checkOpen();
        final SoftCompChannel channel = new SoftCompChannel(this);
        adopt();
        return channel;
    }

    @Override
    public CompletionQueue createCq(final int cqe, final CompletionChannel channel, final int compVector)
    {
        checkOpen();
        if (cqe < 1 || cqe > engine.limits().maxCqe())
        {
            throw new RdmaException(Errno.EINVAL, "cqe " + cqe + " is outside 1..max_cqe " + engine.limits().maxCqe());
        }
        if (compVector != 0)
        {
            throw new RdmaException(Errno.EINVAL, "comp_vector " + compVector + " does not exist: the device has 1");
        }
        SoftCompChannel softChannel = null;
        if (channel != null)
        {
            if (!(channel instanceof SoftCompChannel c) || c.context() != this)
            {
                throw new RdmaException(Errno.EINVAL, "the completion channel belongs to another context");
            }
            softChannel = c;
            softChannel.addCq();
        }
        final SoftCq cq = new SoftCq(this, cqe, softChannel);
        adopt();
        return cq;
    }

    @Override
    public AsyncEvent getAsyncEvent(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        checkOpen();
        return engine.takeAsyncEvent(timeout, unit);
    }

    /**
     * {@inheritDoc}
     * <p>
     * {@value #DROP_INJECTED} counts the datagrams the device's link dropped on purpose, when
     * loss is injected ({@code rdma4j.soft.loss}); it is 0 otherwise.
     */
    @Override
    public Map<String, Long> counters()
    {
        return engine.counters().snapshot();
    }

    private synchronized void adopt()
    {
        children++;
    }

    synchronized void release(final Object child)
    {
        children--;
    }

    private synchronized void checkOpen()
    {
        if (closed)
        {
            throw new RdmaException(Errno.EINVAL, "the device context is closed");
        }
    }

    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                throw new RdmaException(Errno.EINVAL, "the device context is already closed");
            }
            if (children > 0)
            {
                throw new RdmaException(Errno.EBUSY, "the device context still has " + children +
                    " PDs, CQs or completion channels");
            }
            closed = true;
        }
        onClose.accept(this);
    }
}
