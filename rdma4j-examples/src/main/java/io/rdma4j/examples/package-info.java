/**
 * Small programs that show the verbs and the connection manager as a C programmer knows them from the RDMA
 * tutorials: an RC client and server that exchange greetings ({@link io.rdma4j.examples.RdmaServer},
 * {@link io.rdma4j.examples.RdmaClient}), RDMA WRITE and READ into memory the peer registered
 * ({@link io.rdma4j.examples.RdmaWriteServer}, {@link io.rdma4j.examples.RdmaWriteClient}), many clients
 * served from one shared receive queue ({@link io.rdma4j.examples.SrqServer},
 * {@link io.rdma4j.examples.SrqClient}), UD requests resolved by SIDR ({@link io.rdma4j.examples.UdServer},
 * {@link io.rdma4j.examples.UdClient}) and multicast through the connection manager
 * ({@link io.rdma4j.examples.MulticastPublisher}, {@link io.rdma4j.examples.MulticastSubscriber}); and gRPC's
 * hello-world over rdma4j's Netty transport, server and client in two processes ({@link io.rdma4j.examples.GrpcHello});
 * reliable multicast, a publisher and three subscribers as four processes at 5 % loss
 * ({@link io.rdma4j.examples.ReliableMulticast}, over {@code io.rdma4j.rmcast}).
 * <p>
 * <b>Arrows.</b> Imports the public API alone, {@code io.rdma4j.verbs} and {@code io.rdma4j.cm}, as an
 * application does: the engines ({@code io.rdma4j.soft}, {@code io.rdma4j.rdmacore}) are run-time dependencies
 * found through the API's provider lookup, never named, so every example runs on the software device or on the
 * host's RDMA device (the native engine takes the addresses its devices own; {@code rdma4j.provider=native} or
 * {@code soft} keeps one engine alone). {@code GrpcHello} imports {@code io.rdma4j.examples.grpc} below it, gRPC and Netty's
 * channel API, and {@code io.rdma4j.netty}. Nothing imports this package.
 */
package io.rdma4j.examples;
