package io.rdma4j.soft;

import io.rdma4j.soft.link.TestLinks;
import io.rdma4j.soft.provider.DevicePath;
import io.rdma4j.soft.provider.SoftProvider;
import io.rdma4j.soft.provider.SoftProviderContext;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.ProgressMode;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.Verbs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A program that hands the default provider (the one the API's ServiceLoader finds) a context in code, before its
 * first use, gets devices made from that context and not from the properties; a second, different context is
 * refused with EBUSY, since devices made with the first may be in use, and the same one again is accepted. This
 * class runs in a JVM of its own (see the module's pom), so the default provider is first used here.
 */
class ConfiguredRegistryTest
{
    private static final int SUBNET = TestNet.nextSubnet();
    /** Read before the test sets properties the test links' own settings would refuse. */
    private static final Path SHM = TestLinks.shmDirectory();

    @AfterAll
    static void clear()
    {
        System.clearProperty("rdma4j.soft.address");
        System.clearProperty("rdma4j.soft.progress");
    }

    @Test
    void devicesComeFromTheContextGiven()
    {
        // what the properties say, were they read: the progress one would be EINVAL
        System.setProperty("rdma4j.soft.address", address(9).getHostAddress());
        System.setProperty("rdma4j.soft.progress", "spin");
        SoftProvider.launchDefault(context());

        final SoftProvider found = (SoftProvider)Verbs.provider(SoftDevices.NAME);
        final List<Device> devices = found.devices();
        assertEquals(List.of(address(1)), devices.stream().map(d -> ((SoftDevice)d).address()).toList());
        assertEquals(context().conclude().settings(), found.softSettings());
        try (Context context = devices.getFirst().open())
        {
            final DevicePath path = DevicePath.of(context).orElseThrow();
            assertEquals(new DevicePath(path.socket(), false, "thread"), path, "thread mode, UDP only");
        }

        SoftProvider.launchDefault(context());
        final RdmaException refused = assertThrows(RdmaException.class,
            () -> SoftProvider.launchDefault(context().progress(ProgressMode.WAITING)));
        assertEquals(Errno.EBUSY, refused.errno());
        assertTrue(refused.getMessage().contains("made already"), refused.getMessage());
    }

    private static SoftProviderContext context()
    {
        return new SoftProviderContext().shmDirectories(List.of(SHM))
            .addresses(List.of(address(1))).progress(ProgressMode.THREAD).sameHost(false).stat(false);
    }

    private static InetAddress address(final int host)
    {
        return TestNet.address(SUBNET, host);
    }
}
