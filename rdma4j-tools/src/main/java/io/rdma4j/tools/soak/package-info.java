/**
 * {@code rdma4j soak}: set-up and tear-down cycles repeated many times, with what the process holds
 * ({@link io.rdma4j.tools.soak.ProcessFootprint}) printed at checkpoints so that a leak shows as a trend
 * ({@link io.rdma4j.tools.soak.SoakCommand}).
 * <p>
 * <b>Arrows.</b> Uses, outside the module, the API ({@code io.rdma4j.verbs}, {@code io.rdma4j.cm}), picocli
 * and the JDK's management beans; no other package of this module, {@code common} included, though it may.
 * Only the root package imports it, to list the command.
 */
package io.rdma4j.tools.soak;
