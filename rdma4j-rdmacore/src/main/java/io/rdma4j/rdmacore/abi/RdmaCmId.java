package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct rdma_cm_id} and the route inside it ({@code struct rdma_route}, {@code struct rdma_addr}):
 * Java reads the device context, the QP, the bound and peer addresses and the port space from it.
 */
public final class RdmaCmId
{
    /** {@code struct sockaddr_storage}'s size: the room for any address in {@code struct rdma_addr}. */
    public static final long SOCKADDR_STORAGE_SIZE = 128;

    /** {@code struct rdma_ib_addr}. */
    public static final StructLayout IB_ADDR_LAYOUT = struct("rdma_ib_addr",
        IbvGid.LAYOUT.withName("sgid"), IbvGid.LAYOUT.withName("dgid"), U16.withName("pkey"));

    /** {@code struct rdma_addr}: the source and destination as socket addresses, then the IB form. */
    public static final StructLayout ADDR_LAYOUT = struct("rdma_addr",
        sockaddrs("src"), sockaddrs("dst"), union("addr", IB_ADDR_LAYOUT.withName("ibaddr")));

    /** {@code struct rdma_route}. */
    public static final StructLayout ROUTE_LAYOUT = struct("rdma_route",
        ADDR_LAYOUT.withName("addr"), POINTER.withName("path_rec"), U32.withName("num_paths"));

    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("rdma_cm_id",
        POINTER.withName("verbs"), POINTER.withName("channel"), POINTER.withName("context"), POINTER.withName("qp"),
        ROUTE_LAYOUT.withName("route"), U32.withName("ps"), U8.withName("port_num"), POINTER.withName("event"),
        POINTER.withName("send_cq_channel"), POINTER.withName("send_cq"), POINTER.withName("recv_cq_channel"),
        POINTER.withName("recv_cq"), POINTER.withName("srq"), POINTER.withName("pd"), U32.withName("qp_type"));

    /** The offset of {@code verbs}. */
    public static final long VERBS = offset(LAYOUT, "verbs");
    /** The offset of {@code qp}. */
    public static final long QP = offset(LAYOUT, "qp");
    /** The offset of {@code route.addr.src_storage}. */
    public static final long SRC_ADDR = offset(LAYOUT, "route", "addr", "src_storage");
    /** The offset of {@code route.addr.dst_storage}. */
    public static final long DST_ADDR = offset(LAYOUT, "route", "addr", "dst_storage");
    /** The offset of {@code ps}. */
    public static final long PS = offset(LAYOUT, "ps");
    /** The offset of {@code port_num}. */
    public static final long PORT_NUM = offset(LAYOUT, "port_num");

    private RdmaCmId()
    {
    }

    // the anonymous union of struct rdma_addr: one address seen as each socket address type
    private static UnionLayout sockaddrs(final String prefix)
    {
        return union(null, opaque(prefix + "_addr", 16, 2), opaque(prefix + "_sin", 16, 4),
            opaque(prefix + "_sin6", 28, 4), opaque(prefix + "_storage", SOCKADDR_STORAGE_SIZE, 8));
    }
}
