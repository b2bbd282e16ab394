/**
 * The software RoCEv2 device: rdma4j's verbs API in pure Java, speaking RoCEv2 over the host's IP
 * network.
 * <p>
 * <b>What it holds.</b> The device registry ({@link io.rdma4j.soft.SoftDevices}), which holds what the process
 * shares (the settings, the stat publisher), the verbs objects
 * ({@link io.rdma4j.soft.SoftDevice}, {@link io.rdma4j.soft.SoftContext}, {@link io.rdma4j.soft.SoftPd},
 * {@link io.rdma4j.soft.SoftCq}, {@link io.rdma4j.soft.SoftQp}, {@link io.rdma4j.soft.SoftSrq}; memory regions
 * and address handles are in {@code resource}), each checking its arguments and
 * limits and throwing {@link io.rdma4j.verbs.RdmaException}; and the device's engine:
 * {@link io.rdma4j.soft.SoftEngine}, an agent whose {@code doWork()} duty cycle receives a batch of
 * datagrams, then does the work the batch left owed (coalesced ACKs: {@code BatchEndList}), then runs the QPs'
 * timers if one is due; {@link io.rdma4j.soft.ReceivePath}, every datagram's checks in
 * rxe's order, one counter per verdict, multicast loopback included; {@link io.rdma4j.soft.QpTable} (random QP
 * numbers, lookup without allocation),
 * {@link io.rdma4j.soft.GsiPort} (QP1, where the connection manager's MADs come and go) and the
 * publishing of the counters ({@code StatPublisher}, {@link io.rdma4j.soft.StatSections}).
 * <p>
 * <b>Arrows.</b> This package implements {@code io.rdma4j.verbs} and the transports' view of the device
 * ({@code transport.TransportDevice}, {@code TransportQp}, {@code CompletionSink}, {@code SharedRecvPool}), and
 * uses, below it: {@code transport} (a QP's requester, responder and completer), {@code resource} (memory
 * regions, address handles), {@code wire} (to parse and build packets), {@code link} (to move them),
 * {@code mcast} (the group table), {@code stat} (the counters file), {@code counter}, {@code file} and
 * {@code config} (leaves; the settings, which the registry reads once and hands down).
 * Nothing here knows the connection manager: {@code cm} uses the devices through the verbs API,
 * {@link io.rdma4j.soft.SoftDevices} and a {@link io.rdma4j.soft.GsiHandler} on QP1, and adds its lines to the
 * stat files through {@link io.rdma4j.soft.StatSections}; {@code provider} sits on top of both. No package of
 * the device imports one above it ({@code PackageCyclesTest}).
 * <p>
 * <b>Threads.</b> Application threads create and destroy objects, post work requests and poll
 * completions (posting also runs the requester, which sends at once). Each open device has one
 * progress thread running {@code doWork()} under the receive lock; in polling mode a thread polling
 * an empty CQ runs a receive batch itself when it gets the lock. A packet is handled by one thread
 * at a time; posting and polling allocate nothing.
 */
package io.rdma4j.soft;
