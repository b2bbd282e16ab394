package io.rdma4j.netty.example;

import io.netty.channel.Channel;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.rdma4j.netty.RdmaIoHandler;
import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The echo example as its users run it, server and client in one JVM on this JVM's own loopback addresses.
 */
@Timeout(60)
class RdmaEchoTest
{
    @Test
    void echoesAMessage()
        throws Exception
    {
        final int subnet = TestNet.nextSubnet();
        final MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
        try
        {
            final Channel server = RdmaEcho.serve(group, new InetSocketAddress(TestNet.address(subnet, 1), 0));
            final String echoed = RdmaEcho.echo(group, (InetSocketAddress)server.localAddress(),
                new InetSocketAddress(TestNet.address(subnet, 2), 0), "hello over RDMA");
            assertEquals("hello over RDMA", echoed);
            server.close().sync();
        }
        finally
        {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
