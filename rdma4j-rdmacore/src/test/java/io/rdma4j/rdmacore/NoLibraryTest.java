package io.rdma4j.rdmacore;

import io.rdma4j.rdmacore.provider.NativeProvider;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Verbs;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A machine without libibverbs, forced by naming a library that does not exist before the provider first loads
 * it (each test class has a JVM of its own): no device, one sentence, no exception, the soft devices as
 * before.
 */
class NoLibraryTest
{
    private static final String MISSING = "libibverbs-missing-for-rdma4j-test.so.1";

    @BeforeAll
    static void nameAMissingLibrary()
    {
        System.setProperty(NativeLibrary.IBVERBS_PROPERTY, MISSING);
    }

    @Test
    void listsNothingAndNamesTheLibrary()
    {
        final NativeProvider provider = new NativeProvider();

        assertFalse(Ibverbs.LIBRARY.isLoaded());
        assertEquals(List.of(), provider.devices());
        final String reason = provider.unavailableReason();
        assertTrue(reason.startsWith(MISSING + " could not be loaded"), reason);
        assertTrue(reason.contains("libibverbs1"), reason);
    }

    @Test
    void theSoftDevicesAreListedAsWithoutTheModule()
    {
        final List<Device> devices = Verbs.getDeviceList();

        assertFalse(devices.isEmpty());
        assertTrue(devices.stream().allMatch(d -> d.provider().equals("soft")), devices.toString());
    }

    @Test
    void choosingTheNativeProviderListsNothingWithoutThrowing()
    {
        System.setProperty(Verbs.PROVIDER_PROPERTY, NativeProvider.NAME);
        try
        {
            assertEquals(List.of(), Verbs.getDeviceList());
        }
        finally
        {
            System.clearProperty(Verbs.PROVIDER_PROPERTY);
        }
    }
}
