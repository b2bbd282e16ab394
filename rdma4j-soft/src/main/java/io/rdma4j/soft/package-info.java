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
 * {@link io.rdma4j.soft.SoftEngine}, the running device (its link, tables, counters, QP1, and the device as
 * the transports see it), whose agent ({@code ProgressAgent}, run by Agrona's {@code AgentRunner} with an
 * injectable idle strategy) has a {@code doWork()} duty cycle that receives a batch of datagrams, then does the
 * work the batch left owed (coalesced ACKs: {@code BatchEndList}), then runs the QPs' timers if one is due;
 * {@link io.rdma4j.soft.QpTable} (random QP numbers, lookup without allocation),
 * {@link io.rdma4j.soft.GsiPort} (QP1, where the connection manager's MADs come and go) and the
 * publishing of the counters ({@code StatPublisher}, {@link io.rdma4j.soft.StatSections}).
 * <p>
 * <b>Arrows.</b> This package implements {@code io.rdma4j.verbs} (its error sentences worded by
 * {@code io.rdma4j.spi.Counted}) and the transports' view of the device ({@code transport.TransportDevice} is
 * the engine, {@code TransportQp} the base of {@code SoftQp}, {@code CompletionSink} a CQ,
 * {@code SharedRecvPool} an SRQ, {@code receive.MadPort} QP1), and uses, below it: {@code receive} (every
 * datagram's checks in rxe's order, one counter per verdict, multicast loopback included), {@code transport} (a QP's requester, responder and completer),
 * {@code resource} (memory regions, address handles), {@code wire} (to parse and build packets),
 * {@code link} (to move them) and {@code link.socket} (to choose a device's socket), {@code mcast} (the group
 * table), {@code stat} (the counters file and MBean), {@code counter} and {@code config} (the settings, which
 * the registry reads once and hands down). Nothing here knows the connection
 * manager, which sits above: {@code cm} finds the devices through {@link io.rdma4j.soft.SoftDevices}, sends
 * and receives its MADs through a device's {@code SoftEngine} (QP1, with a {@link io.rdma4j.soft.GsiHandler}),
 * makes its QPs through the verbs API and adds its lines to the stat files through
 * {@link io.rdma4j.soft.StatSections}; {@code provider} sits on top of both. No package of the device imports
 * one above it ({@code PackageCyclesTest}). The module does not export this package; only the benchmarks
 * use it directly ({@code SoftDevice}, on the class path).
 * <p>
 * <b>Threads.</b> Application threads create and destroy objects, post work requests and poll
 * completions (posting also runs the requester, which sends at once). Each open device has one
 * progress thread running {@code doWork()} under the receive lock; in polling mode, the default, a thread
 * polling an empty CQ runs a receive batch itself when it gets the lock. A packet is handled by one thread
 * at a time; posting and polling allocate nothing. One daemon thread per process ({@code StatPublisher})
 * copies the counters into the stat files.
 */
package io.rdma4j.soft;
