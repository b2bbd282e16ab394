/**
 * What the modules' tests share, never shipped: loopback addresses and multicast groups that belong to one test
 * JVM ({@link io.rdma4j.testing.TestNet}), so concurrent builds on one host never share a RoCEv2 address or
 * group, and the package graph of a module's main classes ({@link io.rdma4j.testing.PackageGraph}), which
 * checks that the arrows the package-info files describe form no cycle and that every package has one; and, for
 * the modules that run Netty, its leak detector at PARANOID with the leaks collected for an assertion
 * ({@link io.rdma4j.testing.NettyLeaks}).
 * <p>
 * <b>Arrows.</b> Imports nothing of rdma4j, only the JDK (its {@code jdeps} and class-file API) and Netty's buffers
 * (an optional dependency, for {@code NettyLeaks} alone), so that every module's tests can depend on it; no main
 * code imports it, only the tests of the other modules.
 */
package io.rdma4j.testing;
