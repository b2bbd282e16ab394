/**
 * The choice of the socket under a device's IP link: the Linux socket ({@code link.linux}) where its C library
 * binding loads, the portable NIO one ({@code link}) elsewhere or when asked ({@code rdma4j.soft.socket}).
 * <p>
 * <b>Arrows.</b> Imports {@code link} and {@code link.linux}, the two sockets it chooses between, and
 * {@code config}, the choice as the settings give it. The device ({@code soft}) imports it to open a device's
 * link, and so do the benchmarks, on the class path. It is a package of its own so that {@code link} need not
 * import {@code link.linux}, which builds on it.
 */
package io.rdma4j.soft.link.socket;
