package io.rdma4j.tools.pingpong;

import java.util.function.Function;

/**
 * The four rdma-core pingpong tools, each with the QPs that set it apart.
 */
public enum PingPongKind
{
    /** ibv_rc_pingpong: one RC QP. */
    RC("rc_pingpong", RcQps::new),
    /** ibv_uc_pingpong: one UC QP, no ACKs, no retries. */
    UC("uc_pingpong", UcQps::new),
    /** ibv_ud_pingpong: one UD QP, an address handle, a 40-byte GRH slot in front of each receive. */
    UD("ud_pingpong", UdQps::new),
    /** ibv_srq_pingpong: several RC QPs drawing receives from one shared receive queue. */
    SRQ("srq_pingpong", SrqQps::new);

    private final String toolName;
    private final Function<PingPongConfig, PingPongQps> qps;

    PingPongKind(final String toolName, final Function<PingPongConfig, PingPongQps> qps)
    {
        this.toolName = toolName;
        this.qps = qps;
    }

    /**
     * @return the subcommand name, rdma-core's tool name without {@code ibv_}.
     */
    public String toolName()
    {
        return toolName;
    }

    /**
     * @param config a run of this tool.
     * @return the run's QPs, not made yet.
     */
    PingPongQps qps(final PingPongConfig config)
    {
        return qps.apply(config);
    }
}
