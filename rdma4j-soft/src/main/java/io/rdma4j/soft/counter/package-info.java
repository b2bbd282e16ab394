/**
 * The device's counters: what each one means ({@link io.rdma4j.soft.counter.SoftCounter}) and the set a
 * device, a QP or a link bumps ({@link io.rdma4j.soft.counter.Counters}).
 * <p>
 * <b>Arrows.</b> A leaf: it imports the JDK only, so every layer of the device may import it, and the device
 * ({@code soft}), {@code cm}, {@code transport}, {@code resource}, {@code link}, {@code link.linux} and
 * {@code stat} do.
 */
package io.rdma4j.soft.counter;
