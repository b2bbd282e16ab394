/**
 * JMH benchmarks of the data paths, each beside a baseline measured the same way: a UD round trip and message
 * rate between two software devices of one JVM ({@link io.rdma4j.bench.UdRoundTripBenchmark},
 * {@link io.rdma4j.bench.UdStreamBenchmark}) against bare {@code DatagramChannel}s
 * ({@link io.rdma4j.bench.UdpBaselineBenchmark}), a UD and an RC ping-pong on one thread, which prices RC's
 * ACKs apart from two processes' scheduling ({@link io.rdma4j.bench.PingPongBenchmark}), the native provider's post and poll through FFM
 * ({@link io.rdma4j.bench.NativePostPollBenchmark}) against what {@code -prof gc} reports for no allocation at
 * all ({@link io.rdma4j.bench.GcNoiseFloorBenchmark}), and what each progress mode costs in latency and CPU
 * ({@link io.rdma4j.bench.ProgressModeCost}, a plain program).
 * <p>
 * <b>Arrows.</b> Uses the API ({@code io.rdma4j.verbs}) for the work itself and reaches into the engines, on
 * the class path, only to build what a benchmark compares: a software device with a chosen progress mode
 * ({@code io.rdma4j.soft.SoftDevice}) over a chosen socket or the same-host path ({@code io.rdma4j.soft.link},
 * {@code io.rdma4j.soft.link.socket}), and the native provider without the lookup
 * ({@code io.rdma4j.rdmacore.provider}). Only the classes JMH generates ({@code jmh_generated}) import it.
 */
package io.rdma4j.bench;
