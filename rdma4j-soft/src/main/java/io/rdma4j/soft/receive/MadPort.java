package io.rdma4j.soft.receive;

import io.rdma4j.soft.wire.PacketInfo;

/**
 * QP1 as the receive path sees it: whether anyone takes MADs on this device, and where a MAD that passed every
 * check goes. The device's GSI port implements it, above.
 */
public interface MadPort
{
    /** QP1, the general services interface: the connection manager's MADs come and go there. */
    int GSI_QPN = 1;
    /** Bytes in a management datagram: the MAD format's (IBA 13.4.1). */
    int MAD_LENGTH = 256;

    /**
     * @return true if a handler takes this device's MADs; without one, QP1 traffic is dropped as for a QP that
     *         does not exist.
     */
    boolean hasHandler();

    /**
     * @param packet a UD SEND_ONLY to QP1 with the GSI Q_Key and at least {@link #MAD_LENGTH} bytes of payload,
     *               its ICRC checked.
     */
    void onMad(PacketInfo packet);
}
