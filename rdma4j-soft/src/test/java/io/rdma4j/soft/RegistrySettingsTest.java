package io.rdma4j.soft;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.provider.DevicePath;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.Context;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The registry reads the properties once, at first use, and its devices, those made later included, get their
 * settings from what it read: properties changed afterwards, even to values that would be refused, change nothing.
 * This class runs in a JVM of its own (see the module's pom), so the registry is first used here.
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
    void devicesKeepTheSettingsReadAtFirstUse()
    {
        final List<SoftDevice> configured = SoftDevices.all();
        final SoftSettings read = SoftDevices.settings();
        assertEquals(List.of(address(1)), configured.stream().map(SoftDevice::address).toList());
        assertEquals(new DevicePath(pathOf(configured.getFirst()).socket(), false, "thread"),
            pathOf(configured.getFirst()), "thread mode, UDP only");

        // each would be EINVAL had a device read it now
        System.setProperty("rdma4j.soft.progress", "spin");
        System.setProperty("rdma4j.soft.shm", "on");
        System.setProperty("rdma4j.stat", "maybe");
        System.setProperty("rdma4j.soft.loss", "2");

        final SoftDevice later = SoftDevices.deviceFor(address(2));
        final DevicePath path = pathOf(later);
        assertFalse(!path.progress().equals("thread") || path.sameHost(), path.toString());
        assertSame(read, SoftDevices.settings());
        assertSame(read, later.settings());
        assertSame(read, SoftDevice.builder("built", address(3)).build().settings(), "a built device's default");
        assertThrows(IllegalStateException.class, () -> SoftDevices.configure(read),
            "settings given once devices may have the others");
    }

    private static DevicePath pathOf(final SoftDevice device)
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
