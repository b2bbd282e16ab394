package io.rdma4j.soft;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.IpLink;
import io.rdma4j.soft.link.SameHostLink;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.Context;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * {@code rdma4j.soft.shm} as a device's settings carry it: {@code auto} (the default) gives its default link the
 * same-host path, {@code off} leaves it UDP only, and the builder's own choice wins over the settings'. The values
 * the property accepts are {@code SoftSettingsTest}'s.
 */
class SameHostSettingTest
{
    /** 127.P.89.n, P from the pid: no other test class uses a third octet of 89. */
    private static final int SUBNET = TestNet.nextSubnet();

    @Test
    void autoGivesTheSameHostPathAndOffGivesUdpOnly() throws Exception
    {
        final SoftSettings registry = SoftSettings.fromSystem();
        assertInstanceOf(SameHostLink.class, linkOf(SoftDevice.builder("setting1", address(1))
            .settings(registry.toBuilder().sameHost(true).build())));
        final Object udpOnly = linkOf(SoftDevice.builder("setting2", address(2))
            .settings(registry.toBuilder().sameHost(false).build()));
        assertInstanceOf(IpLink.class, udpOnly);
        assertFalse(udpOnly instanceof SameHostLink, udpOnly.toString());
    }

    @Test
    void theBuildersChoiceWinsOverTheSettings() throws Exception
    {
        final SoftSettings off = SoftSettings.fromSystem().toBuilder().sameHost(false).build();
        assertInstanceOf(SameHostLink.class,
            linkOf(SoftDevice.builder("setting3", address(3)).settings(off).sameHost(true)));
    }

    private static Object linkOf(final SoftDevice.Builder builder)
    {
        final Context context = builder.build().open();
        try
        {
            return SoftEngine.of(context).link();
        }
        finally
        {
            context.close();
        }
    }

    private static InetAddress address(final int host)
    {
        return TestNet.address(SUBNET, host);
    }
}
