package io.rdma4j.soft;

import io.rdma4j.soft.link.IpLink;
import io.rdma4j.soft.link.SameHostLink;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rdma4j.soft.shm}: {@code auto} (and no setting) gives a device's default link the same-host path,
 * {@code off} leaves it UDP only, anything else is refused with a sentence naming both.
 */
class SameHostSettingTest
{
    /** 127.P.89.n, P from the pid: no other test class uses a third octet of 89. */
    private static final int SUBNET = TestNet.nextSubnet();

    @Test
    void autoAndNothingGiveTheSameHostPathAndOffGivesUdpOnly() throws Exception
    {
        assertInstanceOf(SameHostLink.class, linkWith(null, 1));
        assertInstanceOf(SameHostLink.class, linkWith("auto", 2));
        assertInstanceOf(IpLink.class, linkWith("off", 3));
    }

    @Test
    void anyOtherValueIsRefused()
    {
        System.setProperty(SameHostLink.SETTING, "on");
        try
        {
            final RdmaException ex = assertThrows(RdmaException.class,
                () -> SoftDevice.builder("bad", address(4)).build());
            assertEquals(Errno.EINVAL, ex.errno());
            assertTrue(ex.getMessage().contains("'on' is neither 'auto'"), ex.getMessage());
        }
        finally
        {
            System.clearProperty(SameHostLink.SETTING);
        }
    }

    private static Object linkWith(final String setting, final int host) throws Exception
    {
        if (setting == null)
        {
            System.clearProperty(SameHostLink.SETTING);
        }
        else
        {
            System.setProperty(SameHostLink.SETTING, setting);
        }
        try
        {
            final Context context = SoftDevice.builder("setting" + host, address(host)).build().open();
            try
            {
                return ((SoftContext)context).engine().link();
            }
            finally
            {
                context.close();
            }
        }
        finally
        {
            System.clearProperty(SameHostLink.SETTING);
        }
    }

    private static InetAddress address(final int host)
    {
        return TestNet.address(SUBNET, host);
    }
}
