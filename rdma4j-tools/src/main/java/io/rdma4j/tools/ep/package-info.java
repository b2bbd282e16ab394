/**
 * {@code rdma4j rdma_server} and {@code rdma4j rdma_client}: librdmacm's examples of its synchronous convenience
 * layer ({@link io.rdma4j.tools.ep.RdmaServerCommand}, {@link io.rdma4j.tools.ep.RdmaClientCommand}), one 16-byte
 * message each way over an RC connection, with their flags, output and exit status.
 * <p>
 * <b>Arrows.</b> Uses {@code common} and, outside the module, the API ({@code io.rdma4j.verbs},
 * {@code io.rdma4j.cm}, {@code io.rdma4j.cm.ep}) and picocli. Only the root package imports it, to list the
 * commands; it imports no other command package.
 */
package io.rdma4j.tools.ep;
