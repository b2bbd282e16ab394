package io.rdma4j.soft;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.link.TestLinks;
import io.rdma4j.soft.provider.DevicePath;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.Context;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * A program that configures the registry in code, before its first use, gets devices made from those settings and
 * not from the properties. This class runs in a JVM of its own (see the module's pom), so the registry is first
 * used here.
 */
class ConfiguredRegistryTest
{
    private static final int SUBNET = TestNet.nextSubnet();

    @AfterAll
    static void clear()
    {
        System.clearProperty("rdma4j.soft.address");
        System.clearProperty("rdma4j.soft.progress");
    }

    @Test
    void devicesComeFromTheSettingsGiven()
    {
        final SoftSettings given = SoftSettings.builder().shmDirectory(TestLinks.shmDirectory())
            .addresses(List.of(address(1))).polling(false).sameHost(false).stat(false).build();
        // what the properties say, were they read
        System.setProperty("rdma4j.soft.address", address(9).getHostAddress());
        System.setProperty("rdma4j.soft.progress", "spin");
        SoftDevices.configure(given);

        final List<SoftDevice> devices = SoftDevices.all();
        assertEquals(List.of(address(1)), devices.stream().map(SoftDevice::address).toList());
        assertSame(given, SoftDevices.settings());
        try (Context context = devices.getFirst().open())
        {
            final DevicePath path = DevicePath.of(context).orElseThrow();
            assertEquals(new DevicePath(path.socket(), false, "thread"), path, "thread mode, UDP only");
        }
    }

    private static InetAddress address(final int host)
    {
        return TestNet.address(SUBNET, host);
    }
}
