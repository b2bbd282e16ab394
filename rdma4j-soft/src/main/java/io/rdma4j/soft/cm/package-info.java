/**
 * The software device's connection manager: rdma_cm's API ({@link io.rdma4j.soft.cm.SoftEventChannel},
 * {@link io.rdma4j.soft.cm.SoftCmId}) over the InfiniBand CM protocol carried in MADs on QP1, as the
 * kernel speaks it on RoCE, so the peer may be rdma-core on rxe or a NIC.
 * <p>
 * <b>What it holds.</b> {@link io.rdma4j.soft.cm.ConnectionManager}, an instance per provider with an
 * injected clock: the comm-id and listener tables, and {@code CmLoop}, its one thread (an
 * Agrona agent, like the device's) with the bounded MAD queue, the completions and the timers;
 * {@link io.rdma4j.soft.cm.CmConnection}, the protocol of one connection as a single
 * (phase, message) to phase state machine (REQ/REP/RTU, MRA, DREQ/DREP, REJ, timewait, SIDR for UD);
 * behind the thin {@code SoftCmId}: {@link io.rdma4j.soft.cm.CmBinding} (device, port, addresses),
 * {@link io.rdma4j.soft.cm.CmListener} (backlog, requests), {@link io.rdma4j.soft.cm.CmHandshake} (the
 * messages connect, accept and reject send), {@link io.rdma4j.soft.cm.CmQpSetup} (the QP rdma_cm
 * creates), {@link io.rdma4j.soft.cm.CmMulticastJoins} (joins over RoCEv2) and
 * {@link io.rdma4j.soft.cm.CmIdRelease} (what a destroyed id gives back); and {@code mad}, the MAD codecs.
 * <p>
 * <b>Arrows.</b> Implements {@code io.rdma4j.cm} (its errors worded by {@code io.rdma4j.spi.Counted}) and sits
 * above the device ({@code io.rdma4j.soft}): it finds devices through its provider instance's {@code SoftDevices} (handed in with
 * {@link io.rdma4j.soft.cm.CmShared}, never a static), sends and receives
 * MADs through a device's {@code engine.SoftEngine} (QP1, with a {@link io.rdma4j.soft.engine.GsiHandler}), creates an id's
 * QP and moves it through its states with the verbs API ({@code io.rdma4j.verbs}), and adds its lines to the
 * stat files through {@code StatSections}. Below that it uses {@code mad} for the wire, {@code link} for the
 * IP hop limit and {@code counter} for the dropped-MAD count; never {@code transport} or {@code resource}.
 * A device's engine knows nothing of it: the manager maps an engine back to its device itself ({@code CmDevices}).
 * Only {@code provider} imports it. A message is matched on both comm ids, the source address and, where it
 * carries one, our QPN; anything else is dropped with its own counter ({@link io.rdma4j.soft.cm.CmCounter}).
 * <p>
 * <b>Threads.</b> The device's progress thread only queues a MAD (dropping and counting it when the
 * queue is full); the CM thread handles MADs, retransmissions and timewait. Application threads call
 * the API under the event channel's lock, and the events they take wait on that channel.
 */
package io.rdma4j.soft.cm;
