/**
 * {@code rdma4j rmcast_pub} and {@code rdma4j rmcast_sub}: a reliable multicast publisher and subscriber
 * ({@code io.rdma4j.rmcast}) that print, once a second, what AeronStat shows for a stream: message and byte
 * rates, members, back pressure, gaps and what repaired them, losses and the position lag.
 * <p>
 * <b>Arrows.</b> Imports the public API and {@code io.rdma4j.rmcast}; nothing in the tools imports it but
 * {@code io.rdma4j.tools.Main}, which lists the commands.
 */
package io.rdma4j.tools.rmcast;
