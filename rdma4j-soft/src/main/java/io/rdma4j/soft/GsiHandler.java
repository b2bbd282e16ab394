package io.rdma4j.soft;

/**
 * Takes the management datagrams (MADs) that arrive for QP1, the general services interface,
 * where the connection manager's REQ, REP, RTU, REJ, DREQ, DREP and SIDR messages travel.
 * Called on the device's progress thread: hand the work to another thread rather than block it.
 */
@FunctionalInterface
public interface GsiHandler
{
    /**
     * @param engine       the device that received it.
     * @param mad          the 256 bytes of the MAD, a copy the handler may keep.
     * @param sourceIpv4   the sender's IPv4 address as a big-endian int: replies go to its QP1.
     * @param sourcePort   the sender's UDP source port.
     */
    void onMad(SoftEngine engine, byte[] mad, int sourceIpv4, int sourcePort);
}
