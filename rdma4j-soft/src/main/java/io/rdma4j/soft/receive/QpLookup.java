package io.rdma4j.soft.receive;

import io.rdma4j.soft.transport.TransportQp;

/**
 * The device's QPs by number, as the receive path looks them up for every unicast packet.
 */
@FunctionalInterface
public interface QpLookup
{
    /**
     * @param qpn a QP number from a packet's BTH.
     * @return the QP, or null if none has that number.
     */
    TransportQp qp(int qpn);
}
