/**
 * gRPC-Java over rdma4j: the greeter service of gRPC's hello-world described without protoc
 * ({@link io.rdma4j.examples.grpc.Greeter}), and gRPC's Netty server and channel builders given rdma4j's
 * channels and event loops ({@link io.rdma4j.examples.grpc.GrpcOverRdma}).
 * <p>
 * <b>Arrows.</b> Imports gRPC ({@code io.grpc}, {@code io.grpc.netty}, {@code io.grpc.stub}), Netty's channel
 * API and {@code io.rdma4j.netty}; never an rdma4j engine or the verbs. Imported by
 * {@link io.rdma4j.examples.GrpcHello} alone.
 */
package io.rdma4j.examples.grpc;
