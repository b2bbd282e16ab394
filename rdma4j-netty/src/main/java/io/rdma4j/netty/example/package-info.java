/**
 * Netty's echo example over RDMA ({@link io.rdma4j.netty.example.RdmaEcho}): Netty's own bootstraps, with only
 * the event loop group's factory and the channel classes naming rdma4j.
 * <p>
 * <b>Arrows.</b> Imports {@code io.rdma4j.netty} and Netty, nothing of rdma4j's API directly; nothing imports
 * it, and the module does not export it.
 */
package io.rdma4j.netty.example;
