package io.rdma4j.tools;

import io.rdma4j.cm.EventChannel;
import io.rdma4j.soft.cm.SoftEventChannel;
import io.rdma4j.tools.common.DeviceOption;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tools' {@code -d NAME}: a device found by name, an unknown name refused with the names there are, the
 * connection-manager tools taking the named device's engine, and {@code devices} naming each device's engine and a
 * software device's address.
 */
class DeviceOptionTest
{
    private static String run(final String... args)
    {
        final StringWriter text = new StringWriter();
        final CommandLine commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(text, true));
        commandLine.setErr(new PrintWriter(text, true));
        final int status = commandLine.execute(args);
        return status + ":" + text;
    }

    @Test
    void aDeviceIsFoundByNameAndItsEngineServesTheConnectionManager()
    {
        final Device soft = DeviceOption.find("soft0");
        assertEquals("soft", soft.provider());
        try (EventChannel channel = DeviceOption.eventChannel("soft0"))
        {
            assertInstanceOf(SoftEventChannel.class, channel);
        }
    }

    @Test
    void anUnknownNameIsRefusedWithTheNamesThereAre()
    {
        final RdmaException ex = assertThrows(RdmaException.class, () -> DeviceOption.find("nosuch0"));
        assertEquals(Errno.ENODEV, ex.errno());
        assertTrue(ex.getMessage().contains("soft0"), ex.getMessage());
    }

    @Test
    void theConnectionManagerToolsTakeTheDeviceOption()
    {
        for (final String[] args : new String[][] {
            {"mckey", "-d", "nosuch0", "-m", "239.1.2.3", "-b", "127.0.0.41", "--timeout", "1"},
            {"udaddy", "-d", "nosuch0", "-b", "127.0.0.42", "--timeout", "1"},
            {"rping", "--ib-dev", "nosuch0", "-s", "-a", "127.0.0.43", "-C", "1"}})
        {
            final String result = run(args);
            assertTrue(result.contains("no RDMA device named nosuch0"), String.join(" ", args) + " -> " + result);
            assertNotEquals('0', result.charAt(0), result);
        }
    }

    @Test
    void devicesNamesTheEngineAndTheSoftwareDevicesAddress()
    {
        final InetAddress address = DeviceOption.find("soft0").address();
        assertNotNull(address, "a software device knows its address unopened");

        final String result = run("devices");
        assertTrue(result.contains("engine\taddress"), result);
        assertTrue(result.lines().anyMatch(line -> line.contains("soft0") &&
            line.trim().endsWith("\tsoft\t" + address.getHostAddress())), result);
    }

    @Test
    void anAddressReadsAsTheToolsTakeIt() throws UnknownHostException
    {
        assertEquals("127.0.0.5", DevicesCommand.addressText(InetAddress.getByName("127.0.0.5")));
        assertEquals("::1", DevicesCommand.addressText(InetAddress.getByName("::1")));
        assertEquals("fd77::3", DevicesCommand.addressText(InetAddress.getByName("fd77:0:0:0:0:0:0:3")));
        assertEquals("-", DevicesCommand.addressText(null), "a native device has no address of its own");
    }
}
