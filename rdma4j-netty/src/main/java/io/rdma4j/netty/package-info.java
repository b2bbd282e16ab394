/**
 * Netty channels over RDMA.
 * <p>
 * An {@link io.rdma4j.netty.RdmaIoHandler} drives the connection manager's events and the completion queues of
 * the channels registered on its event loop. An {@link io.rdma4j.netty.RdmaChannel} carries Netty's byte stream
 * over RC SEND/RECV into receive buffers registered once per connection, with credit-based flow control: a
 * sender never posts more SENDs than its peer has receives posted, so there is no receiver-not-ready retry and
 * no unbounded queue; a reader that stops reading stops the credits, and the writer's channel turns unwritable
 * at its high water mark.
 * <pre>{@code
 * EventLoopGroup group = new MultiThreadIoEventLoopGroup(RdmaIoHandler.newFactory());
 * new ServerBootstrap().group(group).channel(RdmaServerChannel.class).childHandler(...).bind(address);
 * new Bootstrap().group(group).channel(RdmaChannel.class).handler(...).connect(address);
 * }</pre>
 */
package io.rdma4j.netty;
