package io.rdma4j.soft.link;

import io.rdma4j.soft.SoftDevice;
import io.rdma4j.soft.link.linux.LinuxUdpLink;
import io.rdma4j.soft.link.socket.UdpLinks;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A port another socket holds: the sentence names the address and port and the usual fix (an address per
 * process), and where the host lists RDMA devices (rxe binds UDP 4791 on every address) also the setting that
 * moves the program onto the native engine. Both sockets and the device's open say it so; a directory of the
 * test's own stands for the host's device list ({@code /sys/class/infiniband}).
 */
@Timeout(30)
class PortInUseTest
{
    private static final String OWN_ADDRESS = "each process needs its own address (127.x.y.z on loopback)";

    @Test
    void shouldNameTheNativeEngineWhereTheHostListsRdmaDevices(@TempDir final Path sysClass) throws IOException
    {
        Files.createDirectory(sysClass.resolve("rxe0"));
        Files.createDirectory(sysClass.resolve("mlx5_0"));

        final String message = PortInUse.message("10.77.0.11:4791", sysClass);

        assertTrue(message.startsWith("10.77.0.11:4791 is already in use by another process (or by the kernel's " +
            "rxe"), message);
        assertTrue(message.contains(OWN_ADDRESS), message);
        assertTrue(message.contains("this host has RDMA devices [mlx5_0, rxe0]"), message);
        assertTrue(message.contains("-Drdma4j.provider=native (or RDMA4J_PROVIDER=native)"), message);
        assertTrue(message.contains("rdma4j-rdmacore on the class path"), message);
    }

    @Test
    void shouldNotNameTheNativeEngineWhereTheHostListsNone(@TempDir final Path sysClass)
    {
        final String none = PortInUse.message("127.0.0.5:4791", sysClass);
        final String missing = PortInUse.message("127.0.0.5:4791", sysClass.resolve("infiniband"));

        assertEquals("127.0.0.5:4791 is already in use by another process (or by the kernel's rxe, which binds the " +
            "wildcard address): " + OWN_ADDRESS, none);
        assertEquals(none, missing, "no directory is no device");
    }

    @ParameterizedTest
    @EnumSource(UdpLinks.Socket.class)
    void shouldSayItWhenEitherSocketFindsThePortTakenOnAHostWithRxe(final UdpLinks.Socket socket,
        @TempDir final Path sysClass) throws IOException
    {
        assumeTrue(socket != UdpLinks.Socket.LINUX || LinuxUdpLink.unavailableReason() == null,
            LinuxUdpLink::unavailableReason);
        Files.createDirectory(sysClass.resolve("rxe0"));
        final InetAddress taken = TestNet.address(TestNet.nextSubnet(), 1);
        final Path before = PortInUse.listDevicesIn(sysClass);
        try (DatagramChannel other = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            other.bind(new InetSocketAddress(taken, Link.ROCE_V2_PORT));

            final LinkOpenException ex = assertThrows(LinkOpenException.class,
                () -> UdpLinks.open(socket, taken, Link.ROCE_V2_PORT));

            assertEquals(Errno.EADDRINUSE, ex.errno());
            assertEquals(PortInUse.message(taken.getHostAddress() + ":" + Link.ROCE_V2_PORT, sysClass),
                ex.getMessage());
            assertTrue(ex.getMessage().contains("[rxe0]: to use them, choose the native engine with " +
                "-Drdma4j.provider=native"), ex.getMessage());
        }
        finally
        {
            PortInUse.listDevicesIn(before);
        }
    }

    @Test
    void shouldSayItWhenTheSoftDeviceCannotOpenOnAHostWithRxe(@TempDir final Path sysClass) throws IOException
    {
        Files.createDirectory(sysClass.resolve("rxe0"));
        final InetAddress taken = TestNet.address(TestNet.nextSubnet(), 1);
        final Path before = PortInUse.listDevicesIn(sysClass);
        try (DatagramChannel other = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            other.bind(new InetSocketAddress(taken, Link.ROCE_V2_PORT));
            final SoftDevice device = SoftDevice.builder("port_taken", taken).build();

            final RdmaException ex = assertThrows(RdmaException.class, device::open);

            assertEquals(Errno.EADDRINUSE, ex.errno());
            assertTrue(ex.getMessage().startsWith("EADDRINUSE: cannot open port_taken on " +
                taken.getHostAddress() + ": " + taken.getHostAddress() + ":" + Link.ROCE_V2_PORT +
                " is already in use"), ex.getMessage());
            assertTrue(ex.getMessage().contains(OWN_ADDRESS), ex.getMessage());
            assertTrue(ex.getMessage().contains("this host has RDMA devices [rxe0]: to use them, choose the native " +
                "engine with -Drdma4j.provider=native (or RDMA4J_PROVIDER=native)"), ex.getMessage());
        }
        finally
        {
            PortInUse.listDevicesIn(before);
        }
    }
}
