/**
 * The device's counters: what each one means and its fixed id and group ({@link io.rdma4j.soft.counter.SoftCounter},
 * {@link io.rdma4j.soft.counter.CounterGroup}), and the set a device, a QP, a link or the connection manager bumps
 * ({@link io.rdma4j.soft.counter.Counters}), indexed by id.
 * <p>
 * <b>Arrows.</b> A leaf: it imports the JDK only, so every layer of the device may import it, and the device
 * ({@code soft}), {@code cm}, {@code transport}, {@code resource}, {@code link}, {@code link.linux} and
 * {@code stat} do.
 */
package io.rdma4j.soft.counter;
