package io.rdma4j.tools;

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
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.RdmaException;

import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A context that answers queries with the attributes of the captured rxe0 (kernel 6.1), so the
 * formatter can be compared with real ibv_devinfo output; it can do nothing else.
 */
final class FakeRxeContext implements Context
{
    static final long GUID = 0x505400fffe77000bL;

    private final Device device = new Device()
    {
        @Override
        public String name()
        {
            return "rxe0";
        }

        @Override
        public long guid()
        {
            return GUID;
        }

        @Override
        public String provider()
        {
            return "fake";
        }

        @Override
        public Context open()
        {
            return FakeRxeContext.this;
        }
    };

    @Override
    public Device device()
    {
        return device;
    }

    @Override
    public DeviceAttr queryDevice()
    {
        return new DeviceAttr("0.0.0", GUID, GUID, -1L, 0xfffff000L, 0xffffff, 0, 0, 1048560, 1048576, 0x01223c76L,
            32, 32, 1048576, 32767, 524287, 1048576, 128, 0, 258048, 128, 0, 1, 0, 0, 524287, 0, 0, 8192, 56, 458752,
            32767, 0, 0, 917503, 1048576, 27, 64, 15, 1, 512);
    }

    @Override
    public PortAttr queryPort(final int portNum)
    {
        if (portNum != 1)
        {
            throw new RdmaException(Errno.EINVAL, "no port " + portNum);
        }
        return new PortAttr(PortState.ACTIVE, Mtu.MTU_4096, Mtu.MTU_1024, 1024, 0x00010000L, 0x800000L, 0, 0, 1, 0, 0,
            0, 1, 0, 0, 0, 1, 1, 5, "Ethernet");
    }

    @Override
    public Gid queryGid(final int portNum, final int index)
    {
        return switch (index)
        {
            case 0 -> Gid.parse("fe80::5054:ff:fe77:b");
            case 1 -> Gid.parse("10.77.0.11");
            default -> Gid.ZERO;
        };
    }

    @Override
    public ProtectionDomain allocPd()
    {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletionChannel createCompChannel()
    {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletionQueue createCq(final int cqe, final CompletionChannel channel, final int compVector)
    {
        throw new UnsupportedOperationException();
    }

    @Override
    public AsyncEvent getAsyncEvent(final long timeout, final TimeUnit unit)
    {
        return null;
    }

    @Override
    public Map<String, Long> counters()
    {
        return Map.of();
    }

    @Override
    public void close()
    {
    }
}
