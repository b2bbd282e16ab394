/**
 * The device's counters: what each one means and its fixed id and group ({@link io.rdma4j.soft.counter.SoftCounter},
 * {@link io.rdma4j.soft.counter.CounterGroup}), and the set a device, a QP, a link or the connection manager bumps
 * ({@link io.rdma4j.soft.counter.Counters}), indexed by id.
 * <p>
 * Arrows: a leaf. It imports the JDK only, and every layer of the device may import it.
 */
package io.rdma4j.soft.counter;
