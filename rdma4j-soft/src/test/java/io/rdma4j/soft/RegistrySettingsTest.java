package io.rdma4j.soft;

import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.provider.DevicePath;
import io.rdma4j.soft.provider.SoftProvider;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Verbs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The default provider reads the properties once, at first use, and its devices, those made later included, get
 * their settings from what it read: properties changed afterwards, even to values that would be refused, change
 * nothing. This class runs in a JVM of its own (see the module's pom), so the default provider is first used here.
 */
class RegistrySettingsTest
{
    private static final int SUBNET = TestNet.nextSubnet();
    private static final List<String> SET = List.of("rdma4j.soft.address", "rdma4j.soft.progress", "rdma4j.soft.shm",
        "rdma4j.stat", "rdma4j.soft.loss");

    @BeforeAll
    static void configure()
    {
        System.setProperty("rdma4j.soft.address", address(1).getHostAddress());
        System.setProperty("rdma4j.soft.progress", "thread");
        System.setProperty("rdma4j.soft.shm", "off");
        System.setProperty("rdma4j.stat", "false");
    }

    @AfterAll
    static void clear()
    {
        SET.forEach(System::clearProperty);
    }

    @Test
    void devicesKeepTheSettingsReadAtFirstUse() throws Exception
    {
        final SoftProvider provider = (SoftProvider)Verbs.provider(SoftDevices.NAME);
        final List<Device> configured = provider.devices();
        final SoftSettings read = provider.softSettings();
        assertEquals(List.of(address(1)), configured.stream().map(d -> ((SoftDevice)d).address()).toList());
        assertEquals(new DevicePath(pathOf(configured.getFirst()).socket(), false, "thread"),
            pathOf(configured.getFirst()), "thread mode, UDP only");

        // each would be EINVAL had a device read it now
        System.setProperty("rdma4j.soft.progress", "spin");
        System.setProperty("rdma4j.soft.shm", "on");
        System.setProperty("rdma4j.stat", "maybe");
        System.setProperty("rdma4j.soft.loss", "2");

        // the connection manager makes a device for an address of this host it is asked to bind
        try (EventChannel channel = RdmaCm.createEventChannel(SoftDevices.NAME);
            CmId id = channel.createId(null, PortSpace.TCP))
        {
            id.bindAddr(new InetSocketAddress(address(2), 0));
            final SoftDevice later = (SoftDevice)id.verbs().device();
            assertEquals(address(2), later.address());
            final DevicePath path = DevicePath.of(id.verbs()).orElseThrow();
            assertFalse(!path.progress().equals("thread") || path.sameHost(), path.toString());
            assertSame(read, later.settings());
        }
        assertSame(read, ((SoftProvider)Verbs.provider(SoftDevices.NAME)).softSettings(), "a new lookup's view");
    }

    private static DevicePath pathOf(final Device device)
    {
        try (Context context = device.open())
        {
            return DevicePath.of(context).orElseThrow();
        }
    }

    private static InetAddress address(final int host)
    {
        return TestNet.address(SUBNET, host);
    }
}
