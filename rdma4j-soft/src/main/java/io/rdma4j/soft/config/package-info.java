/**
 * The software device's configuration: every {@code rdma4j.soft.*} and {@code rdma4j.stat*} setting declared
 * once ({@link io.rdma4j.soft.config.SoftSettings}), read once per process from the system properties and the
 * environment by the device registry, and handed down from there to the devices, their links and their stat
 * files, which read no property themselves.
 * <p>
 * Arrows: a leaf. It imports {@code io.rdma4j.spi}'s {@code Setting} and the verbs' exception, and every package
 * of the device may import it: a link or the stat file takes the values it needs from here, never from the
 * registry above it.
 */
package io.rdma4j.soft.config;
