package io.rdma4j.tools.pingpong;

import io.rdma4j.tools.common.CNumber;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rdma4j rc_pingpong}: rdma-core's ibv_rc_pingpong on rdma4j's devices, interoperable with
 * it (same TCP handshake, same QP attributes, same output).
 */
@Command(name = "rc_pingpong", mixinStandardHelpOptions = true, sortOptions = false, exitCodeOnInvalidInput = 1,
    description = "Ping-pong SENDs over an RC QP, like rdma-core's ibv_rc_pingpong.")
public final class RcPingPongCommand extends PingPongCommand
{
    @Option(names = {"-s", "--size"}, paramLabel = "<size>", defaultValue = "4096", converter = CNumber.class,
        description = "size of message to exchange (default 4096)")
    private int size;

    @Option(names = {"-m", "--mtu"}, paramLabel = "<size>", defaultValue = "1024", converter = CNumber.class,
        description = "path MTU (default 1024)")
    private int mtu;

    @Option(names = {"-o", "--odp"}, description = "use on demand paging (refused: the soft device has no ODP)")
    private boolean odp;

    @Option(names = {"-O", "--iodp"}, description = "use implicit on demand paging (refused: no ODP)")
    private boolean implicitOdp;

    @Option(names = {"-P", "--prefetch"}, description = "prefetch an ODP MR (needs -o/-O)")
    private boolean prefetch;

    @Option(names = {"-t", "--ts"}, description = "get CQE with timestamp (refused: no completion timestamps)")
    private boolean timestamps;

    @Option(names = {"-j", "--dm"}, description = "use device memory (refused: the soft device has none)")
    private boolean deviceMemory;

    @Option(names = {"-N", "--new_send"}, description = "use new post send WR API (accepted: rdma4j has one post "
        + "API, and the SEND on the wire is the same)")
    private boolean newSend;

    @Option(names = {"-U", "--allow-cc-unprotected"},
        description = "allow allocation of unprotected/shared memory on CoCo guests (refused: no parent domains)")
    private boolean ccUnprotected;

    @Override
    protected PingPongKind kind()
    {
        return PingPongKind.RC;
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
    protected String invalidCombination()
    {
        final boolean anyOdp = odp || implicitOdp;
        if (anyOdp && deviceMemory)
        {
            return "DM memory region can't be on demand";
        }
        if (ccUnprotected && anyOdp)
        {
            return "CoCo unprotected memory cannot be used with ODP";
        }
        if (ccUnprotected && deviceMemory)
        {
            return "CoCo unprotected memory cannot be used with device memory";
        }
        if (!anyOdp && prefetch)
        {
            return "prefetch is valid only with on-demand memory region";
        }
        return null;
    }

    @Override
    protected String unsupportedByDevice()
    {
        if (ccUnprotected)
        {
            return "Couldn't allocate parent domain";
        }
        if (odp || implicitOdp)
        {
            return "The device isn't ODP capable or does not support RC send and receive with ODP";
        }
        if (timestamps)
        {
            return "The device isn't completion timestamp capable";
        }
        if (deviceMemory)
        {
            return "Device doesn't support dm allocation";
        }
        return null;
    }
}
