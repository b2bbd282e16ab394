package io.rdma4j.tools.common;

import io.rdma4j.verbs.Gid;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class GidTextTest
{
    @Test
    void shouldCompressTheLongestZeroRunLikeInetNtop()
    {
        assertEquals("fe80::5054:ff:fe77:b", GidText.of(Gid.parse("fe80:0:0:0:5054:ff:fe77:b")));
        assertEquals("::", GidText.of(Gid.ZERO));
        assertEquals("1:0:2::", GidText.of(Gid.parse("1:0:2:0:0:0:0:0")));
        assertEquals("ff0e::1", GidText.of(Gid.parse("ff0e::1")));
    }

    @Test
    void shouldWriteIpv4MappedGidsInDottedDecimal()
    {
        assertEquals("::ffff:10.77.0.11", GidText.of(Gid.parse("10.77.0.11")));
        assertEquals("::ffff:239.1.2.3", GidText.of(Gid.parse("239.1.2.3")));
    }

    @Test
    void shouldWriteGuidsInFourGroups()
    {
        assertEquals("5054:00ff:fe77:000b", GidText.guid(0x505400fffe77000bL));
    }
}
