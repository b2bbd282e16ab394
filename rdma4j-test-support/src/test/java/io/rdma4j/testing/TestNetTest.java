package io.rdma4j.testing;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestNetTest
{
    @Test
    void shouldGiveAnotherJvmRunningAtTheSameTimeAnotherSlot() throws Exception
    {
        final int mine = TestNet.slot();
        final Process other = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"), SlotPrinter.class.getName())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
        final String line;
        try (BufferedReader reader = new BufferedReader(
            new InputStreamReader(other.getInputStream(), StandardCharsets.US_ASCII)))
        {
            line = reader.readLine();
        }
        assertTrue(other.waitFor(60, TimeUnit.SECONDS), "the other JVM did not exit");
        assertEquals(0, other.exitValue());
        assertNotEquals(Integer.toString(mine), line, "two live JVMs were given slot " + mine);
    }

    @Test
    void shouldPutTheSlotInEveryAddressAndGroup()
    {
        final int slot = TestNet.slot();
        assertEquals("127." + slot + ".0.7", TestNet.host(7));
        assertEquals("239." + slot + ".0.9", TestNet.group(9));
        assertEquals("127." + slot + ".5.6", TestNet.host(5, 6));
        assertEquals("239." + slot + ".44.30", TestNet.group(44, 30));
        assertEquals("/127." + slot + ".12.3", TestNet.address(12, 3).toString());
        assertEquals("/239." + slot + ".12.4", TestNet.groupAddress(12, 4).toString());
        assertTrue(TestNet.groupAddress(1).isMulticastAddress());
        assertEquals(TestNet.FIRST_PORT + slot * TestNet.PORTS_PER_SLOT + 3, TestNet.tcpPort(3));
        assertTrue(TestNet.tcpPort(TestNet.PORTS_PER_SLOT - 1) < 32_768, "below the ephemeral range");
    }

    @Test
    void shouldRefuseOctetsOutsideTheirRange()
    {
        assertThrows(IllegalArgumentException.class, () -> TestNet.host(0));
        assertThrows(IllegalArgumentException.class, () -> TestNet.host(255));
        assertThrows(IllegalArgumentException.class, () -> TestNet.address(255, 1));
        assertThrows(IllegalArgumentException.class, () -> TestNet.host(TestNet.FIRST_FIXTURE_SUBNET, 1));
    }

    @Test
    void shouldHandOutSubnetsInTurnWithinOneToTwoFiftyFour()
    {
        final int first = TestNet.nextSubnet();
        final int second = TestNet.nextSubnet();
        assertTrue(first >= TestNet.FIRST_FIXTURE_SUBNET && first <= 254, Integer.toString(first));
        assertEquals(first == 254 ? TestNet.FIRST_FIXTURE_SUBNET : first + 1, second);
    }

    /** The other JVM: prints the slot it claimed while the test's JVM holds its own. */
    public static final class SlotPrinter
    {
        public static void main(final String[] args)
        {
            System.out.println(TestNet.slot());
        }
    }
}
