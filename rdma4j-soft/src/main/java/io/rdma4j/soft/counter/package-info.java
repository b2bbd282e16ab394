/**
 * The device's counters: what each one means ({@link io.rdma4j.soft.counter.SoftCounter}) and the set a
 * device, a QP or a link bumps ({@link io.rdma4j.soft.counter.Counters}).
 * <p>
 * Arrows: a leaf. It imports the JDK only, and every layer of the device may import it.
 */
package io.rdma4j.soft.counter;
