/**
 * The processes of the comparison harness's multicast rows: {@link io.rdma4j.bench.compare.mcast.McastPeer}, a
 * publisher or a subscriber of one system (rdma4j's reliable multicast, Aeron's multicast, plain UD multicast on the
 * soft device, raw UDP multicast) behind one pair of interfaces, running one {@link
 * io.rdma4j.bench.compare.mcast.McastPlan}: the same loops, the same back-off when idle, the same accounting of
 * rate and one-way latency at each subscriber.
 * <p>
 * <b>Arrows.</b> Uses rdma4j's public API ({@code io.rdma4j.verbs}, {@code io.rdma4j.cm}) and {@code io.rdma4j.rmcast};
 * outside the project Aeron (with Agrona) and HdrHistogram. Imported by {@code io.rdma4j.bench.compare} alone.
 */
package io.rdma4j.bench.compare.mcast;
