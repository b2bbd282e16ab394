/**
 * The link layer of the software device: moves whole RoCEv2 datagrams (BTH to ICRC) between
 * devices.
 * <p>
 * {@link io.rdma4j.soft.link.Link} is the contract. {@link io.rdma4j.soft.link.UdpLink} is the real
 * one, over the host's IP stack: UDP port 4791 on the device's address, IP multicast for groups;
 * {@code linux.LinuxUdpLink} is the same over the Linux socket API through the FFM API, batching
 * datagrams per system call. {@code link.socket.UdpLinks} chooses between them.
 * {@link io.rdma4j.soft.link.SameHostLink} adds the same-host path: datagrams for another device of this
 * host go into its shared-memory inbox instead of the kernel's UDP stack. {@link io.rdma4j.soft.link.LossyLink}
 * loses a seeded fraction of what it sends. {@link io.rdma4j.soft.link.MemoryNetwork} and
 * {@link io.rdma4j.soft.link.MemoryLink} are an in-JVM network for tests carrying the same bytes, with a
 * seeded {@link io.rdma4j.soft.link.FaultInjector}.
 * <p>
 * <b>Arrows.</b> Below the device: it imports only {@code counter} (the datagram counts), {@code file} (the
 * inboxes' owner-only directory) and the API's {@code Errno}, and knows nothing of packets beyond their bytes
 * and addresses. The device's engine ({@code soft}) receives through it and the transports ({@code transport})
 * send through it; {@code link.linux} and {@code link.socket} build on it, {@code cm} takes its IP hop limit
 * and {@code provider} a link's socket. Outside the module only the benchmarks use it, on the class path.
 * <p>
 * <b>Threads.</b> One receiving thread at a time (the engine's receive lock); sends from any thread.
 * Receiving and sending allocate nothing per datagram.
 */
package io.rdma4j.soft.link;
