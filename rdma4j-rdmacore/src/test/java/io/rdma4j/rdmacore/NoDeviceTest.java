package io.rdma4j.rdmacore;

import io.rdma4j.rdmacore.provider.NativeProvider;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Verbs;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * libibverbs installed, no RDMA device (the build machines): the native provider lists nothing, says why in a
 * sentence, and everything else is as without it. Whether the machine has a device is read from sysfs, not
 * from the code under test; on a machine with one these tests are skipped (DeviceTest runs there).
 */
class NoDeviceTest
{
    @BeforeAll
    static void onlyWithoutDevices() throws IOException
    {
        assumeTrue(Ibverbs.LIBRARY.isLoaded(), "libibverbs.so.1 is not installed here: NoLibraryTest covers that");
        final Path sysfs = Path.of("/sys/class/infiniband");
        if (Files.isDirectory(sysfs))
        {
            try (Stream<Path> entries = Files.list(sysfs))
            {
                assumeTrue(entries.findAny().isEmpty(), "this machine has RDMA devices in " + sysfs);
            }
        }
    }

    @Test
    void listsNoNativeDeviceAndSaysWhy()
    {
        final NativeProvider provider = new NativeProvider();

        assertEquals(0, provider.devices().size());
        final String reason = provider.unavailableReason();
        assertNotNull(reason);
        assertTrue(reason.contains("no RDMA device") || reason.contains("ENOSYS"), reason);
    }

    @Test
    void theDeviceListHoldsTheSoftDevicesAlone()
    {
        assertEquals(Verbs.getDeviceList().stream().map(Device::provider).distinct().toList(), java.util.List.of("soft"));
        assertTrue(Verbs.providers().stream().anyMatch(p -> p.name().equals(NativeProvider.NAME)),
            "the native provider is registered with ServiceLoader");
    }

    @Test
    void autoPrefersTheProviderThatHasDevices()
    {
        // native's priority is better than soft's, but here it has no device
        assertEquals("soft", Verbs.providers().getFirst().name());
    }
}
