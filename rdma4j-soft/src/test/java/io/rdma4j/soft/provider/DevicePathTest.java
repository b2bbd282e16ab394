package io.rdma4j.soft.provider;

import io.rdma4j.soft.SoftDevice;
import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.config.SocketChoice;
import io.rdma4j.soft.link.socket.UdpLinks;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.Context;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.Locale;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An open device reports the socket, same-host path and progress mode it built, not the settings it was given:
 * {@code auto} comes back as the socket the platform gave, the socket under the same-host path through the
 * forwarding link that wraps it.
 */
class DevicePathTest
{
    private static final int SUBNET = TestNet.nextSubnet();

    @Test
    void reportsTheNioSocketWithAndWithoutTheSameHostPath() throws Exception
    {
        assertEquals(new DevicePath("nio", true, "thread"), pathOf(SocketChoice.NIO, true, false, 1));
        assertEquals(new DevicePath("nio", false, "thread"), pathOf(SocketChoice.NIO, false, false, 2));
    }

    @Test
    void autoIsReportedAsTheSocketItChose() throws Exception
    {
        final String chosen = UdpLinks.chosen(SocketChoice.AUTO).name().toLowerCase(Locale.ROOT);
        assertEquals(new DevicePath(chosen, false, "thread"), pathOf(SocketChoice.AUTO, false, false, 3));
    }

    @Test
    void reportsPollingMode() throws Exception
    {
        assertEquals(new DevicePath("nio", false, "polling"), pathOf(SocketChoice.NIO, false, true, 4));
    }

    @Test
    void anotherProvidersContextHasNoPath()
    {
        final Context foreign = (Context)Proxy.newProxyInstance(Context.class.getClassLoader(),
            new Class<?>[] {Context.class}, (proxy, method, args) -> null);
        assertEquals(Optional.empty(), DevicePath.of(foreign));
    }

    @Test
    void readsAsTheHeaderOfRdma4jPerfShowsIt()
    {
        assertEquals("socket linux, shm on, progress polling", new DevicePath("linux", true, "polling").toString());
        assertEquals("socket nio, shm off, progress thread", new DevicePath("nio", false, "thread").toString());
    }

    private static DevicePath pathOf(final SocketChoice socket, final boolean sameHost, final boolean polling,
        final int host) throws Exception
    {
        try (Context context = SoftDevice.builder("path" + host, TestNet.address(SUBNET, host))
            .settings(SoftSettings.fromSystem().toBuilder().socket(socket).build()).sameHost(sameHost)
            .pollsInline(polling).build().open())
        {
            return DevicePath.of(context).orElseThrow();
        }
    }
}
