/**
 * The link layer of the software device: moves whole RoCEv2 datagrams (BTH to ICRC) between
 * devices.
 * <p>
 * {@link io.rdma4j.soft.link.Link} is the contract. {@link io.rdma4j.soft.link.UdpLink} is the real
 * one, over the host's IP stack: UDP port 4791 on the device's address, IP multicast for groups;
 * {@code linux.LinuxUdpLink} is the same over the Linux socket API through the FFM API, batching
 * datagrams per system call. {@code link.socket.UdpLinks} chooses between them.
 * {@link io.rdma4j.soft.link.MemoryNetwork} and {@link io.rdma4j.soft.link.MemoryLink} are an
 * in-JVM network for tests carrying the same bytes, with a seeded
 * {@link io.rdma4j.soft.link.FaultInjector}.
 * <p>
 * <b>Arrows.</b> A leaf: the device's engine receives through it and the transports send through
 * it; it knows nothing of packets beyond their bytes and addresses.
 * <p>
 * <b>Threads.</b> One receiving thread at a time (the engine's receive lock); sends from any thread.
 * Receiving and sending allocate nothing per datagram.
 */
package io.rdma4j.soft.link;
