package io.rdma4j.cm.ep;

import io.rdma4j.cm.PortSpace;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * rdma_getaddrinfo's answers: a passive node of null is the wildcard, the port space gives the QP type, and a
 * service or node that does not resolve is getaddrinfo's code with an errno.
 */
class AddrInfoTest
{
    @Test
    void shouldResolveAsRdmaGetaddrinfoDoes()
    {
        final AddrInfo passive = AddrInfo.get(null, "7471", true, PortSpace.TCP);
        assertEquals(new InetSocketAddress("0.0.0.0", 7471), passive.source());
        assertEquals(QpType.RC, passive.qpType());
        final AddrInfo active = AddrInfo.get("127.0.0.1", "18", false, PortSpace.UDP);
        assertEquals(new InetSocketAddress("127.0.0.1", 18), active.destination());
        assertEquals(QpType.UD, active.qpType());
        final AddrInfoException service = assertThrows(AddrInfoException.class,
            () -> AddrInfo.get("127.0.0.1", "echo", false, PortSpace.TCP));
        assertEquals(AddrInfoException.EAI_SERVICE, service.gaiCode());
        assertEquals(Errno.EINVAL, service.errno());
        final AddrInfoException name = assertThrows(AddrInfoException.class,
            () -> AddrInfo.get(null, "1", false, PortSpace.TCP));
        assertEquals(AddrInfoException.EAI_NONAME, name.gaiCode());
    }

    @Test
    void shouldRefuseAnEndWithoutItsAddress()
    {
        assertEquals(Errno.EINVAL, assertThrows(RdmaException.class,
            () -> new AddrInfo(true, null, null, PortSpace.TCP)).errno());
        assertEquals(Errno.EINVAL, assertThrows(RdmaException.class,
            () -> new AddrInfo(false, null, null, PortSpace.TCP)).errno());
        assertEquals(Errno.EINVAL, assertThrows(RdmaException.class, () -> new AddrInfo(false, null,
            new InetSocketAddress("127.0.0.1", 1), PortSpace.IPOIB)).errno());
    }
}
