/**
 * A Netty 4.2 transport over rdma4j's verbs and connection manager: {@link io.rdma4j.netty.RdmaIoHandler} for
 * Netty's {@code MultiThreadIoEventLoopGroup}, with {@link io.rdma4j.netty.RdmaServerChannel} and
 * {@link io.rdma4j.netty.RdmaChannel} for RC byte streams, and {@link io.rdma4j.netty.RdmaDatagramChannel} for UD
 * multicast. It compiles against {@code io.rdma4j.api} alone; the
 * application puts an engine beside it.
 */
module io.rdma4j.netty
{
    requires transitive io.rdma4j.api;
    requires transitive io.netty.transport;
    requires transitive io.netty.buffer;
    requires transitive io.netty.common;

    exports io.rdma4j.netty;
}
