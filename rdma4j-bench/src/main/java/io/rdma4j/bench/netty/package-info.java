/**
 * Netty over rdma4j against Netty itself ({@link io.rdma4j.bench.netty.NettyBench}, {@code bin/bench-netty}): the
 * same echo, a ping-pong round trip and a pipelined rate, over rdma4j-netty's RC channels on the software device
 * and over Netty's NIO and epoll transports, each transport's server ({@link io.rdma4j.bench.netty.EchoServer})
 * and client ({@link io.rdma4j.bench.netty.EchoClient}) in JVMs of their own.
 * <p>
 * <b>Arrows.</b> Imports rdma4j-netty's channels and its echo example's handler, Netty (epoll only in
 * {@code EpollSupport}), the harness's child process ({@code io.rdma4j.bench.compare.Child}), rdma4j-tools' machine
 * line, HdrHistogram and picocli; nothing of rdma4j's verbs. Nothing imports it.
 */
package io.rdma4j.bench.netty;
