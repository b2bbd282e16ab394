/**
 * The transports of one QP, split as rxe splits them: the requester turns send work requests into
 * packets ({@link io.rdma4j.soft.transport.Requester}), the responder handles requests that arrive
 * ({@link io.rdma4j.soft.transport.Responder}: PSN, opcode sequence, resources, length and rkey
 * checks, then execution, one error state per cause), the completer handles ACKs, NAKs and read or
 * atomic responses ({@link io.rdma4j.soft.transport.Completer}). RC and UC share
 * {@link io.rdma4j.soft.transport.ConnectedTransport}; UD is {@link io.rdma4j.soft.transport.UdTransport}.
 * <p>
 * <b>Arrows.</b> Uses {@code wire} to build and read packets, {@code link} to send them, and the
 * device's QP, CQ and memory tables ({@code soft}) to complete work and reach registered memory;
 * {@code soft}'s engine calls in through {@link io.rdma4j.soft.transport.QpTransport}.
 * <p>
 * <b>Threads.</b> {@code kick} runs under the QP's send lock, on a posting thread or the progress
 * thread; {@code onPacket} and {@code onTimer} on the progress thread (or a poller in polling mode;
 * multicast loopback also on the sending thread). READ responses go out in slices per duty cycle,
 * so one large READ cannot hold the thread.
 */
package io.rdma4j.soft.transport;
