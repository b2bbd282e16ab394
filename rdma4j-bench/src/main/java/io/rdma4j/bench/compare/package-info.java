/**
 * The comparison harness ({@link io.rdma4j.bench.compare.Compare}): the same ping-pong, stream and multicast
 * fan-out on rdma4j's software device, on a raw {@code DatagramChannel} and on Aeron
 * ({@link io.rdma4j.bench.compare.AeronPeer}), each side a process of its own, printed as one table of
 * {@link io.rdma4j.bench.compare.Row}s with every figure over the raw UDP figure of the same workload.
 * <p>
 * The multicast rows ({@link io.rdma4j.bench.compare.McastComparison}, {@code --only rmcast}) run the processes of
 * {@link io.rdma4j.bench.compare.mcast} and print a table of their own ({@link io.rdma4j.bench.compare.McastRow}).
 * <p>
 * <b>Arrows.</b> Imports nothing of rdma4j but {@code MachineLine}: its rdma4j rows come from {@code rdma4j perf}
 * started as child JVMs by class name ({@code io.rdma4j.tools.Main}), so it measures the tool a user runs; the
 * multicast rows' processes are {@link io.rdma4j.bench.compare.mcast}'s, below it. Outside the project it uses
 * Aeron (with Agrona), HdrHistogram and picocli. Nothing imports it.
 */
package io.rdma4j.bench.compare;
