/**
 * rdma-core's four pingpong tools ({@code rc_pingpong}, {@code uc_pingpong}, {@code ud_pingpong},
 * {@code srq_pingpong}) on rdma4j's devices, interoperable with the C tools: the same TCP exchange of
 * {@link io.rdma4j.tools.pingpong.PingPongDest}s ({@link io.rdma4j.tools.pingpong.DestExchange}), QP
 * attributes, output and exit status. {@link io.rdma4j.tools.pingpong.PingPongSession} runs what the tools
 * share; each tool's QPs are a {@code PingPongQps} of its {@link io.rdma4j.tools.pingpong.PingPongKind}.
 * <p>
 * <b>Arrows.</b> Uses {@code common} and, outside the module, {@code io.rdma4j.verbs} and picocli. Only the
 * root package imports it, to list the commands; it imports no other command package.
 */
package io.rdma4j.tools.pingpong;
