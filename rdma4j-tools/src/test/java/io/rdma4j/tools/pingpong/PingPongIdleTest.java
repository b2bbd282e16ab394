package io.rdma4j.tools.pingpong;

import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PingPongIdleTest
{
    @Test
    void shouldPollANativeDeviceAgainAtOnceAsRdmaCoresToolsDo()
    {
        assertEquals(PingPongSession.PLAIN_SPIN, PingPongSession.spinPollsFor(device("native")),
            "a native device's CQ is polled again at once, without a pause or a yield");
    }

    @Test
    void shouldYieldAfterAWhileOnTheSoftDeviceWhoseThreadsNeedTheCores()
    {
        final int spins = PingPongSession.spinPollsFor(device("soft"));
        assertTrue(spins > 0 && spins < 100_000, "the soft device yields after " + spins + " empty polls");
    }

    private static Device device(final String provider)
    {
        return new Device()
        {
            @Override
            public String name()
            {
                return provider + "0";
            }

            @Override
            public long guid()
            {
                return 0;
            }

            @Override
            public String provider()
            {
                return provider;
            }

            @Override
            public Context open()
            {
                throw new UnsupportedOperationException("not opened by this test");
            }
        };
    }
}
