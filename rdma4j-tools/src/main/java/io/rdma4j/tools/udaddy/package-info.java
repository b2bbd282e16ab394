/**
 * {@code rdma4j udaddy}: librdmacm's udaddy ({@link io.rdma4j.tools.udaddy.UdaddyCommand}), UD paths set up
 * through the connection manager (SIDR) and messages answered along them, with udaddy's flags, output and
 * exit status.
 * <p>
 * <b>Arrows.</b> Uses {@code common} and, outside the module, the API ({@code io.rdma4j.verbs},
 * {@code io.rdma4j.cm}) and picocli. Only the root package imports it, to list the command; it imports no
 * other command package.
 */
package io.rdma4j.tools.udaddy;
