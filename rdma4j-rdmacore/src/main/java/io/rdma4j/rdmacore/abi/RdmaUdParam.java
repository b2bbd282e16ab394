package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct rdma_ud_param}: how a UD event (SIDR reply, multicast join) says to reach the peer or group.
 */
public final class RdmaUdParam
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("rdma_ud_param",
        POINTER.withName("private_data"), U8.withName("private_data_len"), IbvAhAttr.LAYOUT.withName("ah_attr"),
        U32.withName("qp_num"), U32.withName("qkey"));

    /** The offset of {@code private_data}. */
    public static final long PRIVATE_DATA = offset(LAYOUT, "private_data");
    /** The offset of {@code private_data_len}. */
    public static final long PRIVATE_DATA_LEN = offset(LAYOUT, "private_data_len");
    /** The offset of {@code ah_attr}. */
    public static final long AH_ATTR = offset(LAYOUT, "ah_attr");
    /** The offset of {@code qp_num}. */
    public static final long QP_NUM = offset(LAYOUT, "qp_num");
    /** The offset of {@code qkey}. */
    public static final long QKEY = offset(LAYOUT, "qkey");

    private RdmaUdParam()
    {
    }
}
