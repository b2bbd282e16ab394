package io.rdma4j.tools.pingpong;

import io.rdma4j.verbs.Mtu;

/**
 * Everything one pingpong run needs, parsed from the command line.
 *
 * @param kind        which tool.
 * @param deviceName  -d, or null for the first device.
 * @param ibPort      -i.
 * @param tcpPort     -p.
 * @param size        -s, bytes per message.
 * @param mtu         -m (unused by UD, which sends within the port's active MTU).
 * @param rxDepth     -r, receives posted at a time.
 * @param iters       -n, exchanges.
 * @param warmup      --warmup, untimed exchanges before the {@code iters} timed ones (rdma4j; 0 as rdma-core).
 * @param sl          -l, service level.
 * @param useEvents   -e, sleep on the completion channel instead of polling.
 * @param gidIndex    -g, local GID index; negative sends no GID (and so no GRH), as rdma-core.
 * @param validate    -c, the buffer check of rdma-core's --chk.
 * @param numQp       -q, QPs (srq_pingpong only; 1 for the others).
 * @param serverName  the positional argument, or null to be the server.
 * @param unsupported rdma-core's message for a requested feature the device lacks, or null.
 */
public record PingPongConfig(
    PingPongKind kind, String deviceName, int ibPort, int tcpPort, int size, Mtu mtu, int rxDepth, int iters,
    int warmup, int sl,
    boolean useEvents, int gidIndex, boolean validate, int numQp, String serverName, String unsupported)
{
    /**
     * @return true when this side connects to a server.
     */
    public boolean isClient()
    {
        return serverName != null;
    }
}
