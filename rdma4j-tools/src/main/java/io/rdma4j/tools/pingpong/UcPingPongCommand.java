package io.rdma4j.tools.pingpong;

import io.rdma4j.tools.common.CNumber;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rdma4j uc_pingpong}: rdma-core's ibv_uc_pingpong on rdma4j's devices.
 */
@Command(name = "uc_pingpong", mixinStandardHelpOptions = true, sortOptions = false, exitCodeOnInvalidInput = 1,
    description = "Ping-pong SENDs over a UC QP, like rdma-core's ibv_uc_pingpong.")
public final class UcPingPongCommand extends PingPongCommand
{
    @Option(names = {"-s", "--size"}, paramLabel = "<size>", defaultValue = "4096", converter = CNumber.class,
        description = "size of message to exchange (default 4096)")
    private int size;

    @Option(names = {"-m", "--mtu"}, paramLabel = "<size>", defaultValue = "1024", converter = CNumber.class,
        description = "path MTU (default 1024)")
    private int mtu;

    @Override
    protected PingPongKind kind()
    {
        return PingPongKind.UC;
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
}
