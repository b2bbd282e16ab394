package io.rdma4j.tools.common;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SoftAddressTest
{
    private final String before = System.getProperty(SoftAddress.PROPERTY);

    @AfterEach
    void restore()
    {
        if (before == null)
        {
            System.clearProperty(SoftAddress.PROPERTY);
        }
        else
        {
            System.setProperty(SoftAddress.PROPERTY, before);
        }
    }

    @Test
    void shouldNotGiveAClientOfAnIpv6ServerAnIpv4LoopbackAddress()
    {
        System.clearProperty(SoftAddress.PROPERTY);
        // an IPv4 device cannot reach an IPv6 GID: leave the choice to the user (--address)
        assertNull(SoftAddress.configure(null, "::1"));
        assertNull(System.getProperty(SoftAddress.PROPERTY));
        assertTrue(SoftAddress.isIpv6("fd77::3"));
        assertFalse(SoftAddress.isIpv6("127.0.0.1"));
        assertFalse(SoftAddress.isIpv6("localhost"));
    }
}
