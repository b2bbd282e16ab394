package io.rdma4j.tools.perf;

import io.rdma4j.verbs.QpType;

import java.nio.file.Path;
import java.util.List;

/**
 * One {@code rdma4j perf} run as parsed: what to measure, on what, how often, and where the peer is.
 *
 * @param test       the test.
 * @param transport  -c, the QP type.
 * @param sizes      the message sizes in bytes, one run each (-s, or every power of two with -a).
 * @param iterations -n, measured exchanges or messages per size.
 * @param warmup     exchanges or messages before measuring, for the JIT and the caches.
 * @param txDepth    -t, sends kept in flight by the bandwidth tests.
 * @param rxDepth    receives the receiving side keeps posted (and the flow-control window of SEND streams).
 * @param inline     -I, the QP's max inline data; sizes up to it are posted inline.
 * @param events     -e, sleep on a completion channel instead of busy polling.
 * @param numQp      -q, QPs the bandwidth tests spread their messages over.
 * @param tcpPort    -p, the port of the control connection.
 * @param serverName the server to connect to, or null for the server.
 * @param histogram  --histogram, where to write the HdrHistogram log, or null.
 * @param receivers  -M, the multicast receivers the server (the sender) waits for; 0 for a unicast run.
 * @param group      the multicast group of a -M run.
 * @param postList   -l, WRs the bandwidth client posts in one chain (one postSend), as perftest's --post_list.
 * @param baselineDatagram --baseline-datagram, the largest datagram of the raw UDP baseline (both sides alike).
 * @param perftest   true to meet the peer with perftest's own exchange (an {@code ib_*} test name, or
 *                   {@code --exchange perftest}), so that perftest's tools can be the other side; false for
 *                   rdma4j's, with the UDP baseline.
 * @param device     -d, the device to open, or null for the first.
 * @param gidIndex   -x, the GID index to use, or -1 to choose (0; with perftest's exchange the first IPv4 one).
 * @param rdmaCm     -R, perftest's exchange over an rdma_cm-connected QP and the test's QPs connected through
 *                   rdma_cm, on {@code tcpPort}.
 * @param mcg        -g, perftest's multicast SEND test (perftest's exchange).
 * @param mgid       perftest's -M/--MGID, the group of -g as perftest writes it, or null for perftest's default.
 * @param qpTimeout  -u, the RC QPs' ACK timeout exponent (4.096 us x 2^n; 0 waits for ever).
 */
public record PerfConfig(
    PerfTest test,
    QpType transport,
    List<Integer> sizes,
    int iterations,
    int warmup,
    int txDepth,
    int rxDepth,
    int inline,
    boolean events,
    int numQp,
    int tcpPort,
    String serverName,
    Path histogram,
    int receivers,
    String group,
    int postList,
    int baselineDatagram,
    boolean perftest,
    String device,
    int gidIndex,
    boolean rdmaCm,
    boolean mcg,
    String mgid,
    int qpTimeout)
{
    /**
     * Copies the size list so the record stays immutable.
     */
    public PerfConfig
    {
        sizes = List.copyOf(sizes);
    }

    /**
     * @return true for the side that connects and measures.
     */
    public boolean isClient()
    {
        return serverName != null;
    }

    /**
     * @return true for a -M run: the server sends to a group, the clients receive.
     */
    public boolean isFanOut()
    {
        return receivers > 0;
    }

    /**
     * @return the largest size, which the buffers are made for.
     */
    public int maxSize()
    {
        int max = 0;
        for (final int size : sizes)
        {
            max = Math.max(max, size);
        }
        return max;
    }
}
