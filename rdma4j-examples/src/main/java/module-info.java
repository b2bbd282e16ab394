/**
 * The examples, written as an application is: against {@code io.rdma4j.api} alone, with the engines
 * ({@code io.rdma4j.soft}, {@code io.rdma4j.rdmacore}) on the module path at run time, bound through the API's
 * {@code uses}. Run one with {@code java --enable-native-access=io.rdma4j.rdmacore,io.rdma4j.soft -p DIR
 * -m io.rdma4j.examples/io.rdma4j.examples.RdmaServer ...}.
 * <p>
 * {@code GrpcHello} alone needs rdma4j's Netty transport and gRPC, whose jars are automatic modules; they are
 * static requirements, so the verbs examples resolve without them, and {@code GrpcHello} runs from the class
 * path ({@code bin/example GrpcHello}).
 */
module io.rdma4j.examples
{
    requires io.rdma4j.api;
    requires static io.rdma4j.rmcast;
    requires static io.rdma4j.netty;
    requires static io.grpc;
    requires static io.grpc.netty;
    requires static io.grpc.stub;
}
