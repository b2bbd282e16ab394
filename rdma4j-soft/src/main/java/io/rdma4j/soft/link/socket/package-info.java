/**
 * The choice of the socket under a device's IP link: the Linux socket ({@code link.linux}) where its C library
 * binding loads, the portable NIO one ({@code link}) elsewhere or when asked ({@code rdma4j.soft.socket}).
 * <p>
 * Arrows: imports {@code link} and {@code link.linux}, the two sockets it chooses between, and {@code config}, the
 * choice as the settings give it; the device imports it.
 */
package io.rdma4j.soft.link.socket;
