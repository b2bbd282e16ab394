/**
 * The software RoCEv2 device: rdma4j's verbs API in pure Java, speaking RoCEv2 over the host's IP
 * network.
 * <p>
 * <b>What it holds.</b> The device registry ({@link io.rdma4j.soft.SoftDevices}), one per provider instance, which
 * holds what its devices share (the settings, the stat publisher {@code StatPublisher} and its
 * {@link io.rdma4j.soft.StatSections}, the exit cleanup), never in a static,
 * and {@link io.rdma4j.soft.SoftDevice}, a device on one IP address: it chooses and opens its link, starts its
 * engine ({@code engine.SoftEngine}) with its first context and closes it with its last, and opens the
 * counters file the stat publisher writes. The verbs objects a context makes are in {@code verbs}.
 * <p>
 * <b>Arrows.</b> The device implements {@code io.rdma4j.verbs.Device} and sits at the top of the device's
 * layers, which import only downward: {@code wire}, {@code link} (with {@code link.linux} and
 * {@code link.socket}, which chooses a device's socket), {@code receive} (every datagram's checks in rxe's
 * order, one counter per verdict, multicast loopback included), {@code transport} (a QP's requester, responder
 * and completer), {@code verbs} (the verbs objects), {@code engine} (the running device and its agent);
 * {@code resource}, {@code mcast}, {@code stat}, {@code counter} and {@code config} (the settings, which the
 * registry reads once and hands down) beside them. Nothing here knows the connection manager, which sits
 * above: {@code cm} finds the devices through its instance's {@link io.rdma4j.soft.SoftDevices}, sends and receives its MADs
 * through a device's engine, makes its QPs through the verbs API and adds its lines to the stat files through
 * {@link io.rdma4j.soft.StatSections}; {@code provider} sits on top of both. No package of the device imports
 * one above it ({@code PackageCyclesTest}). The module does not export this package; only the benchmarks
 * use it directly ({@code SoftDevice}, on the class path).
 * <p>
 * <b>Threads.</b> Opening and closing a device take its monitor; the engine's threads are described in
 * {@code engine}. One daemon thread per provider instance ({@code StatPublisher}), while it has a device to
 * publish, copies the counters into the stat files.
 */
package io.rdma4j.soft;
