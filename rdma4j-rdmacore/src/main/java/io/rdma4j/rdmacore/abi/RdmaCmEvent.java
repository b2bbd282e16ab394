package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct rdma_cm_event}: the id, for a connect request the listener, the type, the status, and the
 * connection or UD parameters.
 */
public final class RdmaCmEvent
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("rdma_cm_event",
        POINTER.withName("id"), POINTER.withName("listen_id"), U32.withName("event"), U32.withName("status"),
        union("param", RdmaConnParam.LAYOUT.withName("conn"), RdmaUdParam.LAYOUT.withName("ud")));

    /** The offset of {@code id}. */
    public static final long ID = offset(LAYOUT, "id");
    /** The offset of {@code listen_id}. */
    public static final long LISTEN_ID = offset(LAYOUT, "listen_id");
    /** The offset of {@code event}. */
    public static final long EVENT = offset(LAYOUT, "event");
    /** The offset of {@code status}. */
    public static final long STATUS = offset(LAYOUT, "status");
    /** The offset of {@code param.conn}. */
    public static final long CONN = offset(LAYOUT, "param", "conn");
    /** The offset of {@code param.ud}. */
    public static final long UD = offset(LAYOUT, "param", "ud");

    private RdmaCmEvent()
    {
    }
}
