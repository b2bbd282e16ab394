package io.rdma4j.soft.engine;

import io.rdma4j.verbs.Gid;

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
     * @param source       the sender's GID, its IP address (IPv4-mapped for IPv4): replies go to its QP1.
     * @param sourcePort   the sender's UDP source port.
     */
    void onMad(SoftEngine engine, byte[] mad, Gid source, int sourcePort);
}
