/**
 * Netty channels over RDMA.
 * <p>
 * An {@link io.rdma4j.netty.RdmaIoHandler} is Netty's {@code IoHandler} for rdma4j channels, in Netty's own
 * registration model as its io_uring transport is: each channel's unsafe is an {@code IoHandle} registered
 * through an {@code IoRegistration}; its completion queue (submitted to the registration as its {@code IoOps}) and
 * the connection manager's events of its ids reach its {@code handle} as {@code IoEvent}s, where its read loop
 * runs; a closed channel's endpoint that still waits for its SENDs is work outstanding on the registration, which
 * goes only once the endpoint has let its CQ go; what a loop makes per device (completion channel, protection
 * domain, pool tick) is shared by its channels on that device. The handler itself only waits and dispatches. An {@link io.rdma4j.netty.RdmaChannel} carries Netty's byte stream
 * over RC SEND/RECV into receive buffers registered once per connection, with credit-based flow control: a
 * sender never posts more SENDs than its peer has receives posted, so there is no receiver-not-ready retry and
 * no unbounded queue; a reader that stops reading stops the credits, and the writer's channel turns unwritable
 * at its high water mark. Its default allocator, {@link io.rdma4j.netty.RdmaByteBufAllocator}, hands out buffers
 * in registered memory, which the channel sends in place: each loop has one protection domain per device for
 * all its QPs, and registers a chunk of the allocator's there the first time it sends from it.
 * An {@link io.rdma4j.netty.RdmaDatagramChannel} is Netty's {@code DatagramChannel} over a UD QP, for multicast:
 * {@code joinGroup} and {@code leaveGroup} are the connection manager's join and leave, a send to a group not joined
 * joins it send-only first, a received datagram's sender is a {@link io.rdma4j.netty.UdAddress} (address and QP
 * number) that a reply may be written to, and datagrams dropped for want of a receive are counted.
 * <p>
 * The handler's loop thread sleeps in one {@code WaitSet} over the completion channels of every device its
 * channels use and its event channel, as an epoll loop sleeps on its descriptors: a completion or a
 * connection-manager event reaches the loop with no thread in between (on the software device the loop thread
 * receives for the first device itself while it sleeps), and Netty's wake-ups end that sleep through
 * {@code WaitSet.wakeup()}; the native provider's channels join the set, which then sleeps in {@code poll(2)} over
 * their descriptors. A channel of a provider no set can hold is slept on by the loop itself if it is the first and
 * the set is empty; any other such is waited on by a small thread of its own, which wakes the loop. With {@code RdmaIoHandler.newFactory(spinPolls)} the
 * loop first polls its CQs busy, unarmed, which in the software device's polling mode receives on the loop
 * thread itself: no thread hand-off at all, for a spinning core.
 * <p>
 * <b>Arrows.</b> Built on the public API alone, {@code io.rdma4j.verbs} and {@code io.rdma4j.cm}, and on
 * Netty's transport, buffers and common; no engine is named, so it runs on whichever provider owns the address.
 * Within the module only {@code example} imports it.
 * <pre>{@code
 * EventLoopGroup group = new MultiThreadIoEventLoopGroup(RdmaIoHandler.newFactory());
 * new ServerBootstrap().group(group).channel(RdmaServerChannel.class).childHandler(...).bind(address);
 * new Bootstrap().group(group).channel(RdmaChannel.class).handler(...).connect(address);
 * }</pre>
 */
package io.rdma4j.netty;
