package io.rdma4j.tools;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DevinfoFormatterTest
{
    private static String capture(final String name) throws IOException
    {
        try (InputStream in = DevinfoFormatterTest.class.getResourceAsStream("/captures/" + name))
        {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void shouldMatchIbvDevinfoOfRxeLineByLine() throws IOException
    {
        final String[] expected = capture("ibv_devinfo.txt").split("\n", -1);
        final String[] actual = DevinfoFormatter.format(new FakeRxeContext(), 0, false).split("\n", -1);

        for (int i = 0; i < Math.min(expected.length, actual.length); i++)
        {
            assertEquals(expected[i], actual[i], "line " + (i + 1));
        }
        assertEquals(expected.length, actual.length);
    }

    @Test
    void shouldMatchIbvDevinfoVerboseOfRxeLineByLine() throws IOException
    {
        final String[] expected = capture("ibv_devinfo_v.txt").split("\n", -1);
        final String[] actual = DevinfoFormatter.format(new FakeRxeContext(), 0, true).split("\n", -1);

        for (int i = 0; i < Math.min(expected.length, actual.length); i++)
        {
            assertEquals(expected[i], actual[i], "line " + (i + 1));
        }
        assertEquals(expected.length, actual.length);
    }

    @Test
    void shouldPrintMulticastLimitsAndRoceV2Gids()
    {
        final String text = DevinfoFormatter.format(new FakeRxeContext(), 1, true);

        assertTrue(text.contains("\tmax_mcast_grp:\t\t\t8192\n"));
        assertTrue(text.contains("\tmax_mcast_qp_attach:\t\t56\n"));
        assertTrue(text.contains("\tmax_total_mcast_qp_attach:\t458752\n"));
        assertTrue(text.contains("GID[  1]:\t\t::ffff:10.77.0.11, RoCE v2\n"));
    }

    @Test
    void shouldPrintNoPortForAnotherPortNumber()
    {
        final String text = DevinfoFormatter.format(new FakeRxeContext(), 2, false);

        assertTrue(text.endsWith("\tphys_port_cnt:\t\t\t1\n"));
    }
}
