/**
 * The receive checks, as rxe's {@code rxe_recv.c}: every datagram the device takes from its link, and every
 * multicast packet it loops back to its own members, passes {@link io.rdma4j.soft.receive.ReceivePath} once and
 * is counted as one verdict (a drop with its cause, or {@code rcvd_pkts}) before a transport, QP1
 * ({@link io.rdma4j.soft.receive.MadPort}) or the members of a group get it; the transports trust what it checked.
 * <p>
 * <b>Arrows.</b> Imports {@code transport} (the QP as its transport sees it, and the device's
 * {@code TransportDevice}), {@code resource} (the address handle a loopback was sent with), {@code mcast} (the
 * group table), {@code link} (datagram addressing), {@code wire} and {@code counter}. The device above
 * ({@code soft}: the engine and its agent) builds it and feeds it; nothing else imports it.
 * <p>
 * <b>Threads.</b> Runs under the device's receive lock, one thread at a time, except a loopback, which runs on
 * the sending thread with scratch of its own.
 */
package io.rdma4j.soft.receive;
