package io.rdma4j.soft;

import io.rdma4j.soft.link.SameHostLink;
import io.rdma4j.soft.link.TestLinks;
import io.rdma4j.soft.link.UdpLink;
import io.rdma4j.soft.verbs.DeviceLimits;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.Context;

import java.net.InetAddress;

/**
 * A software device on {@code ::1}, the one IPv6 address every Linux host has on loopback, over a
 * real UDP link. One device binds a port on the address, so a test's QP pairs share the device,
 * and each test class takes a port of its own (from the process id and a slot), so that two
 * classes or two builds on one machine never share one.
 */
final class Ipv6Loopback
{
    static final InetAddress ADDRESS = InetAddress.ofLiteral("::1");

    private Ipv6Loopback()
    {
    }

    /**
     * @param slot 0..7, which of this JVM's ports.
     * @return the UDP port of the slot: 10000 and up, below the ephemeral range, and this test JVM's own
     *         ({@link TestNet#slot()}: no concurrent build has the same).
     */
    static int port(final int slot)
    {
        return 10_000 + TestNet.slot() * 8 + slot;
    }

    /**
     * @param slot   0..7, which of this JVM's ports.
     * @param limits the device's limits.
     * @return a new, opened device on {@code [::1]:port(slot)}.
     */
    static Context open(final int slot, final DeviceLimits limits)
    {
        final int port = port(slot);
        return SoftDevice.builder("v6lo" + slot, ADDRESS).limits(limits).link(a -> new UdpLink(a, port)).build()
            .open();
    }

    /**
     * @param slot   0..7, which of this JVM's ports.
     * @param limits the device's limits.
     * @return a new, opened device on {@code [::1]:port(slot)} with the same-host path: its own QPs reach each
     *         other through its inbox, as two devices of one user on an IPv4 loopback address do.
     */
    static Context openSameHost(final int slot, final DeviceLimits limits)
    {
        final int port = port(slot);
        return SoftDevice.builder("v6shm" + slot, ADDRESS).limits(limits).link(a -> SameHostLink.over(
            TestLinks.open(a, port), TestLinks.shmDirectory(), System.getLogger(Ipv6Loopback.class.getName())))
            .build().open();
    }
}
