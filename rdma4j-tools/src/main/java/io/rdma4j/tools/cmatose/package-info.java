/**
 * {@code rdma4j cmatose} (also {@code ucmatose}, the name rdma-core installs it under): librdmacm's cmatose
 * ({@link io.rdma4j.tools.cmatose.CmatoseCommand}), many RC connections set up through the connection
 * manager at once, messages sent both ways on each, then a disconnect, with cmatose's flags, output and
 * exit status.
 * <p>
 * <b>Arrows.</b> Uses {@code common} and, outside the module, the API ({@code io.rdma4j.verbs},
 * {@code io.rdma4j.cm}) and picocli. Only the root package imports it, to list the command; it imports no
 * other command package.
 */
package io.rdma4j.tools.cmatose;
