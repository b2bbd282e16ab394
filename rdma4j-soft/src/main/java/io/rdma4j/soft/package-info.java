/**
 * The software RoCEv2 device: rdma4j's verbs API in pure Java, speaking RoCEv2 over the host's IP
 * network.
 * <p>
 * <b>What it holds.</b> The device registry ({@link io.rdma4j.soft.SoftDevices}), the verbs objects
 * ({@link io.rdma4j.soft.SoftDevice}, {@link io.rdma4j.soft.SoftContext}, {@link io.rdma4j.soft.SoftPd},
 * {@link io.rdma4j.soft.SoftMr}, {@link io.rdma4j.soft.SoftCq}, {@link io.rdma4j.soft.SoftQp},
 * {@link io.rdma4j.soft.SoftSrq}, {@link io.rdma4j.soft.SoftAh}), each checking its arguments and
 * limits and throwing {@link io.rdma4j.verbs.RdmaException}; and the device's engine:
 * {@link io.rdma4j.soft.SoftEngine}, an agent whose {@code doWork()} duty cycle receives a batch of
 * datagrams and runs the QPs' timers; {@link io.rdma4j.soft.ReceivePath}, every datagram's checks in
 * rxe's order, one counter per verdict; {@link io.rdma4j.soft.QpTable} (random QP numbers, lookup
 * without allocation), {@link io.rdma4j.soft.MrTable} (rkeys with a random key byte),
 * {@link io.rdma4j.soft.GsiPort} (QP1, where the connection manager's MADs come and go) and the
 * publishing of the counters ({@code StatPublisher}, {@link io.rdma4j.soft.StatSections}).
 * <p>
 * <b>Arrows.</b> This package implements {@code io.rdma4j.verbs}, and uses {@code wire} (to parse
 * and build packets), {@code link} (to move them), {@code transport} (a QP's requester, responder and
 * completer), {@code mcast} (the group table), {@code stat} (the counters file), {@code counter} and
 * {@code file} (leaves). Nothing here knows the connection manager: {@code cm} uses the devices through the
 * verbs API, {@link io.rdma4j.soft.SoftDevices} and a {@link io.rdma4j.soft.GsiHandler} on QP1, and adds
 * its lines to the stat files through {@link io.rdma4j.soft.StatSections}; {@code provider} sits on top of
 * both. Still to untangle: {@code transport} reaches back into this package (the engine, CQs, PDs, the MR
 * table), which the narrow device interface of the structure work is to replace.
 * <p>
 * <b>Threads.</b> Application threads create and destroy objects, post work requests and poll
 * completions (posting also runs the requester, which sends at once). Each open device has one
 * progress thread running {@code doWork()} under the receive lock; in polling mode a thread polling
 * an empty CQ runs a receive batch itself when it gets the lock. A packet is handled by one thread
 * at a time; posting and polling allocate nothing.
 */
package io.rdma4j.soft;
