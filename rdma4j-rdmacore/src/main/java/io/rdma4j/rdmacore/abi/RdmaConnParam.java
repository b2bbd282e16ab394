package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct rdma_conn_param}: what connect and accept send, and what a connection event carries.
 */
public final class RdmaConnParam
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("rdma_conn_param",
        POINTER.withName("private_data"), U8.withName("private_data_len"), U8.withName("responder_resources"),
        U8.withName("initiator_depth"), U8.withName("flow_control"), U8.withName("retry_count"),
        U8.withName("rnr_retry_count"), U8.withName("srq"), U32.withName("qp_num"));

    /** The offset of {@code private_data}. */
    public static final long PRIVATE_DATA = offset(LAYOUT, "private_data");
    /** The offset of {@code private_data_len}. */
    public static final long PRIVATE_DATA_LEN = offset(LAYOUT, "private_data_len");
    /** The offset of {@code responder_resources}. */
    public static final long RESPONDER_RESOURCES = offset(LAYOUT, "responder_resources");
    /** The offset of {@code initiator_depth}. */
    public static final long INITIATOR_DEPTH = offset(LAYOUT, "initiator_depth");
    /** The offset of {@code flow_control}. */
    public static final long FLOW_CONTROL = offset(LAYOUT, "flow_control");
    /** The offset of {@code retry_count}. */
    public static final long RETRY_COUNT = offset(LAYOUT, "retry_count");
    /** The offset of {@code rnr_retry_count}. */
    public static final long RNR_RETRY_COUNT = offset(LAYOUT, "rnr_retry_count");
    /** The offset of {@code srq}. */
    public static final long SRQ = offset(LAYOUT, "srq");
    /** The offset of {@code qp_num}. */
    public static final long QP_NUM = offset(LAYOUT, "qp_num");

    private RdmaConnParam()
    {
    }
}
