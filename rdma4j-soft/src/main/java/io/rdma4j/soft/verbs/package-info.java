/**
 * The software device's verbs objects: a context, PDs, CQs, completion channels, QPs and SRQs, each
 * implementing its {@code io.rdma4j.verbs} interface the way libibverbs' objects behave over rxe.
 * <p>
 * <b>What it holds.</b> {@link io.rdma4j.soft.verbs.SoftContext} (the parent that counts its children, the
 * device's attributes), {@link io.rdma4j.soft.verbs.SoftPd} (memory registration, QP and AH creation),
 * {@link io.rdma4j.soft.verbs.SoftCq} and {@link io.rdma4j.soft.verbs.SoftCompChannel} (completions, and in
 * polling mode the poll that receives), {@link io.rdma4j.soft.verbs.SoftQp} (attributes, modify and post
 * checks, multicast attach; its requester, responder and completer are the {@code transport} its base
 * class holds), {@link io.rdma4j.soft.verbs.SoftSrq}; {@code QpCreation} and {@code QpTransitions} are
 * {@code ibv_create_qp}'s and {@code ibv_modify_qp}'s checks; {@link io.rdma4j.soft.verbs.DeviceLimits} the
 * device's attributes (rxe's by default). Each verb checks its arguments and the device's limits and throws
 * {@link io.rdma4j.verbs.RdmaException} with the errno and a sentence naming the limit or state at fault.
 * <p>
 * <b>Arrows.</b> The objects reach the running device only through
 * {@link io.rdma4j.soft.verbs.VerbsDevice}, which the engine above implements: its limits, tables, async
 * events and the progress hand-off. Below, they use {@code transport} ({@code TransportQp} is
 * {@code SoftQp}'s base, a CQ is a {@code CompletionSink}, an SRQ a {@code SharedRecvPool}), {@code resource}
 * (memory regions, address handles), {@code mcast} and {@code counter}; never {@code engine}, the device and
 * registry ({@code io.rdma4j.soft}) or the connection manager, which are above.
 * <p>
 * <b>Threads.</b> Application threads create and destroy objects, post work requests and poll completions;
 * posting runs the requester, which sends at once; in polling mode a thread polling an empty CQ receives a
 * batch itself. Posting and polling allocate nothing.
 */
package io.rdma4j.soft.verbs;
