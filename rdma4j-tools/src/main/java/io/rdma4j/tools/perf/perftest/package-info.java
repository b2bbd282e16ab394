/**
 * perftest's out-of-band exchange, byte for byte as perftest 4.5 (version 6.06) writes and reads it, so that
 * {@code rdma4j perf} and perftest's {@code ib_*} tools can meet: the version strings and their check
 * ({@link io.rdma4j.tools.perf.perftest.PerftestVersion}), each side's QP, buffer and GID in perftest's
 * colon-separated hex text on its TCP connection or, with {@code -R}, as its binary struct
 * ({@link io.rdma4j.tools.perf.perftest.PerftestDest}), the bandwidth report the client hands the server
 * ({@link io.rdma4j.tools.perf.perftest.BwReport}), and the order in which the two sides write and read them
 * ({@link io.rdma4j.tools.perf.perftest.PerftestChannel}) over the TCP connection or whatever carries the SENDs of
 * an rdma_cm QP ({@link io.rdma4j.tools.perf.perftest.PerftestLink}).
 * <p>
 * <b>Arrows.</b> A leaf: the JDK only. {@code io.rdma4j.tools.perf} uses it.
 */
package io.rdma4j.tools.perf.perftest;
