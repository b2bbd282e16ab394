package io.rdma4j.tools.pingpong;

import io.rdma4j.tools.common.CNumber;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rdma4j srq_pingpong}: rdma-core's ibv_srq_pingpong on rdma4j's devices: several RC QPs
 * sharing one SRQ, 256 address messages exchanged each way as rdma-core does.
 */
@Command(name = "srq_pingpong", mixinStandardHelpOptions = true, sortOptions = false, exitCodeOnInvalidInput = 1,
    description = "Ping-pong SENDs over RC QPs sharing a receive queue, like rdma-core's ibv_srq_pingpong.")
public final class SrqPingPongCommand extends PingPongCommand
{
    @Option(names = {"-s", "--size"}, paramLabel = "<size>", defaultValue = "4096", converter = CNumber.class,
        description = "size of message to exchange (default 4096)")
    private int size;

    @Option(names = {"-m", "--mtu"}, paramLabel = "<size>", defaultValue = "1024", converter = CNumber.class,
        description = "path MTU (default 1024)")
    private int mtu;

    @Option(names = {"-q", "--num-qp"}, paramLabel = "<num>", defaultValue = "16", converter = CNumber.class,
        description = "number of QPs to use (default 16)")
    private int numQp;

    @Option(names = {"-o", "--odp"}, description = "use on demand paging (refused: the soft device has no ODP)")
    private boolean odp;

    @Override
    protected PingPongKind kind()
    {
        return PingPongKind.SRQ;
    }

    @Override
    protected int size()
    {
        return size;
    }

    @Override
    protected int mtuBytes()
    {
        return mtu;
    }

    @Override
    protected int numQp()
    {
        return numQp;
    }

    @Override
    protected String argumentProblem()
    {
        if (numQp > rxDepth())
        {
            return "rx_depth " + rxDepth() + " is too small for " + numQp + " QPs -- must have at least one receive "
                + "per QP.";
        }
        if (numQp >= SrqQps.MAX_QP)
        {
            // rdma-core's wording, off by one as it is: the check is >= 256.
            return "num_qp " + numQp + " must be less than " + (SrqQps.MAX_QP - 1);
        }
        return null;
    }

    @Override
    protected String unsupportedByDevice()
    {
        return odp ? "The device isn't ODP capable or does not support RC send, receive and srq with ODP" : null;
    }
}
