package io.rdma4j.soft.provider;

import io.rdma4j.soft.SoftDevice;
import io.rdma4j.soft.link.socket.UdpLinks;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.Context;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;

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
        assertEquals(new DevicePath("nio", true, false), withSocket("nio", () -> pathOf(true, false, 1)));
        assertEquals(new DevicePath("nio", false, false), withSocket("nio", () -> pathOf(false, false, 2)));
    }

    @Test
    void autoIsReportedAsTheSocketItChose() throws Exception
    {
        final String chosen = withSocket("auto", () -> UdpLinks.chosen().name().toLowerCase(Locale.ROOT));
        assertEquals(new DevicePath(chosen, false, false), withSocket("auto", () -> pathOf(false, false, 3)));
    }

    @Test
    void reportsPollingMode() throws Exception
    {
        assertEquals(new DevicePath("nio", false, true), withSocket("nio", () -> pathOf(false, true, 4)));
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
        assertEquals("socket linux, shm on, progress polling", new DevicePath("linux", true, true).toString());
        assertEquals("socket nio, shm off, progress thread", new DevicePath("nio", false, false).toString());
    }

    private static DevicePath pathOf(final boolean sameHost, final boolean polling, final int host) throws Exception
    {
        try (Context context = SoftDevice.builder("path" + host, TestNet.address(SUBNET, host)).sameHost(sameHost)
            .pollsInline(polling).build().open())
        {
            return DevicePath.of(context).orElseThrow();
        }
    }

    /**
     * Run with {@code rdma4j.soft.socket} set, then put back what the build gave (one execution runs with nio).
     */
    private static <T> T withSocket(final String socket, final Callable<T> body) throws Exception
    {
        final String before = System.getProperty(UdpLinks.PROPERTY);
        System.setProperty(UdpLinks.PROPERTY, socket);
        try
        {
            return body.call();
        }
        finally
        {
            if (before == null)
            {
                System.clearProperty(UdpLinks.PROPERTY);
            }
            else
            {
                System.setProperty(UdpLinks.PROPERTY, before);
            }
        }
    }
}
