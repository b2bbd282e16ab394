package io.rdma4j.rdmacore;

import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.rdmacore.provider.NativeProvider;
import io.rdma4j.soft.cm.SoftEventChannel;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link RdmaCm#createEventChannel()} with both real providers on the class path: on a machine without an RDMA
 * device the channel is the software device's own, as before the native provider existed; where a native device
 * has an address (rxe0 in the lab guest), an id bound to it is the native provider's.
 */
class CmEngineChoiceTest
{
    @Test
    void withoutANativeDeviceTheChannelIsTheSoftwareDevicesOwn()
    {
        final NativeProvider provider = new NativeProvider();
        assumeTrue(provider.devices().isEmpty(), "this machine has a native device: the other test covers it");
        try (EventChannel channel = RdmaCm.createEventChannel())
        {
            assertInstanceOf(SoftEventChannel.class, channel);
        }
        assertFalse(provider.ownsAddress(InetAddress.getLoopbackAddress()));
    }

    @Test
    void anIdBoundToANativeDevicesAddressUsesTheNativeProvider()
    {
        final NativeDevice device = Rxe.device();
        final InetAddress address;
        try (NativeContext context = device.open())
        {
            address = context.queryGid(1, Rxe.ipv4GidIndex(context)).toInet();
        }
        assertTrue(new NativeProvider().ownsAddress(address));
        try (EventChannel channel = RdmaCm.createEventChannel())
        {
            final CmId id = channel.createId(null, PortSpace.TCP);
            id.bindAddr(new InetSocketAddress(address, 0));
            assertInstanceOf(NativeContext.class, id.verbs(), "bound to " + address);
            id.close();
        }
    }
}
