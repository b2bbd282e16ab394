/**
 * How long a process's first connection takes, refused and unreachable ones included, each in a fresh JVM:
 * rdma4j's connection manager and Netty over rdma4j against TCP's socket and Netty's epoll
 * ({@link io.rdma4j.bench.connect.FirstConnect}).
 */
package io.rdma4j.bench.connect;
