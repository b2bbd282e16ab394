package io.rdma4j.soft.link;

import java.net.InetAddress;
import java.net.NetworkInterface;

/**
 * A {@link Link} over the host's IP stack, whichever socket carries it: the portable NIO one
 * ({@link UdpLink}) or the Linux one through the FFM API ({@code linux.LinuxUdpLink}).
 * {@code UdpLinks.open} chooses.
 */
public interface IpLink extends Link
{
    /**
     * @return the interface this link sends multicast on and joins groups on.
     */
    NetworkInterface networkInterface();

    /**
     * @return the number of datagrams the link could not hand to the kernel: {@code udp_send_failures}, in the
     *         device's counters once the link is bound to them ({@link #bindCounters}), in its own until then.
     */
    long sendFailures();

    /**
     * @return the number of receive calls that failed with an I/O error: {@code udp_recv_failures}, counted as
     *         {@link #sendFailures()} is.
     */
    long receiveFailures();

    /**
     * @param group a multicast group.
     * @return how many times the group is joined and not yet left.
     */
    int joinCount(InetAddress group);

    /**
     * Send one empty datagram to a unicast address, after what is queued: the wake-up a same-host sender
     * gives a receiver that waits in its socket ({@link SameHostLink}). Any thread.
     *
     * @param destination the receiver's address (its port is this link's).
     * @return true if handed to the network.
     */
    boolean sendWakeup(InetAddress destination);
}
