package io.rdma4j.verbs;

/**
 * A port's attributes ({@code struct ibv_port_attr}).
 *
 * @param state        port state.
 * @param maxMtu       largest MTU the port supports.
 * @param activeMtu    the MTU in use.
 * @param gidTblLen    GID table length.
 * @param portCapFlags {@code IBV_PORT_*} capability bits.
 * @param maxMsgSz     largest message.
 * @param badPkeyCntr  bad P_Key counter.
 * @param qkeyViolCntr Q_Key violation counter.
 * @param pkeyTblLen   P_Key table length.
 * @param lid          base LID (0 on RoCE).
 * @param smLid        subnet manager LID (0 on RoCE).
 * @param lmc          LID mask count.
 * @param maxVlNum     virtual lanes.
 * @param smSl         subnet manager SL.
 * @param subnetTimeout subnet propagation delay exponent.
 * @param initTypeReply init type reply.
 * @param activeWidth  link width code.
 * @param activeSpeed  link speed code.
 * @param physState    physical state code (5 = LINK_UP).
 * @param linkLayer    "Ethernet" on RoCE, "InfiniBand" on IB.
 */
public record PortAttr(
    PortState state, Mtu maxMtu, Mtu activeMtu, int gidTblLen, long portCapFlags, long maxMsgSz, int badPkeyCntr,
    int qkeyViolCntr, int pkeyTblLen, int lid, int smLid, int lmc, int maxVlNum, int smSl, int subnetTimeout,
    int initTypeReply, int activeWidth, int activeSpeed, int physState, String linkLayer)
{
}
