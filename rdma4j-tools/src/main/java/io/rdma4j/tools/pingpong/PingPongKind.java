package io.rdma4j.tools.pingpong;

import io.rdma4j.verbs.QpType;

/**
 * The four rdma-core pingpong tools and what sets them apart.
 */
public enum PingPongKind
{
    /** ibv_rc_pingpong: one RC QP. */
    RC("rc_pingpong", QpType.RC),
    /** ibv_uc_pingpong: one UC QP, no ACKs, no retries. */
    UC("uc_pingpong", QpType.UC),
    /** ibv_ud_pingpong: one UD QP, an address handle, a 40-byte GRH slot in front of each receive. */
    UD("ud_pingpong", QpType.UD),
    /** ibv_srq_pingpong: several RC QPs drawing receives from one shared receive queue. */
    SRQ("srq_pingpong", QpType.RC);

    /** Q_Key both ud_pingpong ends use. */
    public static final int UD_QKEY = 0x11111111;
    /** Room for the GRH a UD receive gets in front of the payload. */
    public static final int GRH_BYTES = 40;
    /** srq_pingpong's MAX_QP: it always exchanges this many addresses, zeroes for unused QPs. */
    public static final int SRQ_MAX_QP = 256;

    private final String toolName;
    private final QpType qpType;

    PingPongKind(final String toolName, final QpType qpType)
    {
        this.toolName = toolName;
        this.qpType = qpType;
    }

    /**
     * @return the subcommand name, rdma-core's tool name without {@code ibv_}.
     */
    public String toolName()
    {
        return toolName;
    }

    /**
     * @return the transport of its QPs.
     */
    public QpType qpType()
    {
        return qpType;
    }

    /**
     * @return true for the reliable kinds, which set the RC-only attributes when connecting.
     */
    public boolean reliable()
    {
        return qpType == QpType.RC;
    }

    /**
     * @return bytes in front of the payload in the buffer: the GRH slot on UD, else none.
     */
    public int payloadOffset()
    {
        return this == UD ? GRH_BYTES : 0;
    }
}
