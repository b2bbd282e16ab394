package io.rdma4j.cm;

import io.rdma4j.verbs.AhAttr;

/**
 * What a UD event carries ({@code struct rdma_ud_param}): how to reach the peer or group.
 *
 * @param privateData private data of a SIDR exchange, or null.
 * @param ahAttr      the address vector to create an address handle from.
 * @param qpNum       the remote QPN: 0xFFFFFF for a multicast group.
 * @param qkey        the remote Q_Key.
 */
public record UdParam(byte[] privateData, AhAttr ahAttr, int qpNum, int qkey)
{
}
