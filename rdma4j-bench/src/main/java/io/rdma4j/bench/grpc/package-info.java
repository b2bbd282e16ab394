/**
 * gRPC-Java over rdma4j against gRPC-Java over Netty's own transports ({@link io.rdma4j.bench.grpc.GrpcBench},
 * {@code bin/bench-grpc}): unary calls and a server stream of a hand-described service
 * ({@code BenchService}, no protoc), each transport's server ({@link io.rdma4j.bench.grpc.GrpcServer}) and client
 * ({@link io.rdma4j.bench.grpc.GrpcClient}) in JVMs of their own, with bench-netty's conventions.
 * <p>
 * <b>Arrows.</b> Imports bench-netty's transports ({@code io.rdma4j.bench.netty.Transport}), the harness's child
 * process ({@code io.rdma4j.bench.compare.Child}), gRPC-Java, rdma4j-netty's allocator, rdma4j-tools' machine line,
 * HdrHistogram and picocli. Nothing imports it.
 */
package io.rdma4j.bench.grpc;
