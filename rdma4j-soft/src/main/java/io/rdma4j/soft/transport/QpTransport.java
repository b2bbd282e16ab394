package io.rdma4j.soft.transport;

import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.wire.PacketInfo;

/**
 * The transport of one QP: the requester that turns send WQEs into packets, the responder that
 * handles incoming requests, the completer that handles ACKs and responses, as rxe divides
 * them. One implementation per QP type.
 * <p>
 * Threads: {@link #kick} runs under the QP's send lock, from a posting thread or the progress
 * thread. {@link #onPacket} and {@link #onTimer} run on the device's progress thread (and, for
 * multicast loopback, on the sending thread). The UD receive path takes no QP lock; the RC/UC
 * transport guards its own state.
 */
public interface QpTransport
{
    /**
     * Send what can be sent now. Called with the QP's send lock held. A transport that arms a timer reads the
     * device's clock itself: UD arms none, and a post is one clock read fewer for it.
     */
    void kick();

    /**
     * Handle a packet addressed to this QP. A transport that needs the time reads the device's clock itself: an
     * RC completer for the responses that move its timers, nobody for UD packets and requests.
     *
     * @param packet   the decoded packet (its segment holds the datagram).
     * @param datagram addressing of the datagram.
     */
    void onPacket(PacketInfo packet, DatagramInfo datagram);

    /**
     * Run expired timers.
     *
     * @param nowNs the clock.
     * @return the next deadline in the same clock, or {@link Long#MAX_VALUE} if none is armed.
     */
    long onTimer(long nowNs);

    /**
     * The QP entered ERR: complete everything outstanding with WR_FLUSH_ERR. Called with the QP's
     * send lock held.
     */
    void flush();

    /**
     * The QP returned to RESET: forget all transport state.
     */
    void reset();

    /**
     * The QP's attributes changed (state, PSNs, destination).
     */
    default void attributesChanged()
    {
    }
}
