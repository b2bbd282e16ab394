/**
 * The transports of one QP, split as rxe splits them: the requester turns send work requests into
 * packets ({@link io.rdma4j.soft.transport.Requester}), the responder handles requests that arrive
 * ({@link io.rdma4j.soft.transport.Responder}: PSN, opcode sequence, resources, length and rkey
 * checks, then execution, one error state per cause), the completer handles ACKs, NAKs and read or
 * atomic responses ({@link io.rdma4j.soft.transport.Completer}). RC and UC share
 * {@link io.rdma4j.soft.transport.ConnectedTransport}; UD is {@link io.rdma4j.soft.transport.UdTransport}.
 * <p>
 * <b>The device, narrowly.</b> A transport sees its QP as {@link io.rdma4j.soft.transport.TransportQp} (the
 * attributes, queues and completion sinks that rxe's {@code rxe_qp} holds) and the device as
 * {@link io.rdma4j.soft.transport.TransportDevice}: send a packet, look up a memory region, arm a timer, owe work
 * at the end of the receive batch ({@link io.rdma4j.soft.transport.BatchEndWork}), raise an async event, count.
 * Completions go to a {@link io.rdma4j.soft.transport.CompletionSink}, shared receives come from a
 * {@link io.rdma4j.soft.transport.SharedRecvPool}. The receive path above has checked every packet a transport
 * gets (its QP's state, the transport bit, the Q_Key, the addresses, the ICRC), so transports do not check again.
 * <p>
 * <b>Arrows.</b> Imports the API ({@code io.rdma4j.verbs}), {@code wire}, {@code link} (datagram addressing),
 * {@code resource} (memory regions, address handles) and {@code counter}; never the packages above it, whose
 * verbs objects and engine implement the types here ({@code verbs.SoftQp} extends {@code TransportQp}):
 * {@code verbs}, {@code engine} and {@code receive}, which hands each checked packet to its QP's transport,
 * import it.
 * <p>
 * <b>Threads.</b> {@code kick} runs under the QP's send lock, on a posting thread or the progress
 * thread; {@code onPacket}, {@code onTimer} and {@code onBatchEnd} on the progress thread (or a poller in
 * polling mode; a UD QP's {@code onPacket} also on a sending thread, for multicast loopback). READ responses go
 * out in slices per duty cycle, so one large READ cannot hold the thread.
 */
package io.rdma4j.soft.transport;
