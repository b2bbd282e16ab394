package io.rdma4j.tools.pingpong;

import io.rdma4j.tools.common.CNumber;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rdma4j ud_pingpong}: rdma-core's ibv_ud_pingpong on rdma4j's devices. Messages must fit
 * the port's active MTU (4096 for a soft device on loopback; 1024 on a 1500-byte Ethernet, as on rxe).
 */
@Command(name = "ud_pingpong", mixinStandardHelpOptions = true, sortOptions = false, exitCodeOnInvalidInput = 1,
    description = "Ping-pong SENDs over a UD QP, like rdma-core's ibv_ud_pingpong.")
public final class UdPingPongCommand extends PingPongCommand
{
    // rdma-core's usage text says 2048, but its code has used 1024 since 2019 ("Fix UD pingpong
    // default message size to match default MTU"); 2048 would not fit a 1024 active MTU.
    @Option(names = {"-s", "--size"}, paramLabel = "<size>", defaultValue = "1024", converter = CNumber.class,
        description = "size of message to exchange (default 1024, what rdma-core's code uses; at most the port's "
            + "active MTU)")
    private int size;

    @Override
    protected PingPongKind kind()
    {
        return PingPongKind.UD;
    }

    @Override
    protected int size()
    {
        return size;
    }

    @Override
    protected int mtuBytes()
    {
        // UD has no path MTU attribute; the value only has to be a valid one.
        return 1024;
    }
}
