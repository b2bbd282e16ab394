/**
 * {@code rdma4j rping}: librdmacm's rping ({@link io.rdma4j.tools.rping.RpingCommand}), an RC connection
 * through the connection manager and pings that exercise SEND, RDMA READ and RDMA WRITE with rping's wire
 * exchange ({@link io.rdma4j.tools.rping.RpingAdvert}, {@link io.rdma4j.tools.rping.PingPattern}), so either
 * end can be rdma-core's rping.
 * <p>
 * <b>Arrows.</b> Uses {@code common} and, outside the module, the API ({@code io.rdma4j.verbs},
 * {@code io.rdma4j.cm}) and picocli. Only the root package imports it, to list the command; it imports no
 * other command package.
 */
package io.rdma4j.tools.rping;
