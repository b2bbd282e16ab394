/**
 * The running software device, the agent above its verbs objects: rxe's device with its tasks.
 * <p>
 * <b>What it holds.</b> {@link io.rdma4j.soft.engine.SoftEngine}, one per open device and shared by its
 * contexts: the link, the tables (QPs in {@link io.rdma4j.soft.engine.QpTable}, random numbers and lookup
 * without allocation; memory regions; multicast groups), the device's counters, the async event queue,
 * QP1 ({@code GsiPort}, where the connection manager's MADs come and go through a
 * {@link io.rdma4j.soft.engine.GsiHandler}) and the device as the transports see it
 * ({@code transport.TransportDevice}: addressing and sending packets, counting, batch-end work, timers).
 * Its agent ({@code ProgressAgent}, run by Agrona's {@code AgentRunner} with an injectable idle strategy, or
 * driven by {@code doWork()}) has the duty cycle: a batch of datagrams in through {@code receive.ReceivePath},
 * the work the batch left owed ({@code BatchEndList}: only the QPs that owe some), then the QPs' timers when
 * one is due ({@code TimerDeadline}); a progress error is counted and logged at most once a second
 * ({@code ProgressErrorLog}).
 * <p>
 * <b>Arrows.</b> The engine implements the device as the verbs objects see it ({@code verbs.VerbsDevice}, which
 * extends the transports' {@code transport.TransportDevice}) and sees a QP only as a
 * {@code transport.TransportQp}: it imports {@code verbs}, {@code receive}, {@code transport},
 * {@code resource}, {@code mcast}, {@code link}, {@code wire} and {@code counter}, and nothing of the device
 * and registry ({@code io.rdma4j.soft}), the stat file or the connection manager above it. The device opens it
 * and publishes its counters; {@code cm} installs its QP1 handler and reaches it from a context through
 * {@link io.rdma4j.soft.engine.SoftEngine#of}.
 * <p>
 * <b>Threads.</b> One progress thread per open device runs the duty cycle under the receive lock; in
 * polling mode a thread polling an empty CQ takes the lock and receives itself while the progress thread
 * parks. A packet is handled by one thread at a time; nothing in the cycle allocates.
 */
package io.rdma4j.soft.engine;
