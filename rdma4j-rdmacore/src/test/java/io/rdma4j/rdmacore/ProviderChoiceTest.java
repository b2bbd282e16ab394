package io.rdma4j.rdmacore;

import io.rdma4j.rdmacore.provider.NativeProvider;
import io.rdma4j.spi.RdmaProvider;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.Verbs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rdma4j.provider}: auto uses both engines, a name uses that one alone, an unknown name is ENODEV.
 */
class ProviderChoiceTest
{
    @AfterEach
    void clear()
    {
        System.clearProperty(Verbs.PROVIDER_PROPERTY);
    }

    @Test
    void autoIsTheDefaultAndUsesEveryProvider()
    {
        assertEquals(Verbs.AUTO, Verbs.providerChoice());
        assertEquals(List.of("native", "soft"), Verbs.providers().stream().map(RdmaProvider::name).sorted().toList());
    }

    @Test
    void softAloneHidesTheNativeDevices()
    {
        System.setProperty(Verbs.PROVIDER_PROPERTY, "soft");

        assertEquals(List.of("soft"), Verbs.providers().stream().map(RdmaProvider::name).toList());
        assertTrue(Verbs.getDeviceList().stream().map(Device::provider).allMatch("soft"::equals));
    }

    @Test
    void nativeAloneListsOnlyNativeDevices()
    {
        System.setProperty(Verbs.PROVIDER_PROPERTY, "native");

        assertEquals(List.of("native"), Verbs.providers().stream().map(RdmaProvider::name).toList());
        assertEquals(new NativeProvider().devices(), Verbs.getDeviceList());
    }

    @Test
    void anUnknownProviderIsEnodevNamingTheChoices()
    {
        System.setProperty(Verbs.PROVIDER_PROPERTY, "verbs");

        final RdmaException ex = assertThrows(RdmaException.class, Verbs::getDeviceList);
        assertEquals(Errno.ENODEV, ex.errno());
        assertTrue(ex.getMessage().contains("rdma4j.provider=verbs"), ex.getMessage());
        assertTrue(ex.getMessage().contains("native") && ex.getMessage().contains("soft"), ex.getMessage());
    }

    @Test
    void providerByNameIgnoresTheChoice()
    {
        System.setProperty(Verbs.PROVIDER_PROPERTY, "soft");

        assertEquals("native", Verbs.provider("native").name());
    }
}
