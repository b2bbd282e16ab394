package io.rdma4j.bench.grpc;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * The benchmark's service, described by hand as the examples' greeter is, so that no protoc runs: messages are
 * raw bytes. {@link #ECHO} answers a request with its own bytes; {@link #STREAM} answers a {@link #streamRequest}
 * with that many messages of that size, sent as fast as gRPC's flow control lets them go.
 */
final class BenchService
{
    /** The service's full name. */
    static final String SERVICE = "rdma4j.bench.Bench";

    /** Messages are their bytes, nothing around them. */
    static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>()
    {
        @Override
        public InputStream stream(final byte[] value)
        {
            // gRPC sizes the frame from available(), which a ByteArrayInputStream knows
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(final InputStream stream)
        {
            try (stream)
            {
                return stream.readAllBytes();
            }
            catch (final IOException ex)
            {
                throw Status.INTERNAL.withDescription("cannot read a message").withCause(ex).asRuntimeException();
            }
        }
    };

    /** A request in, the same bytes out. */
    static final MethodDescriptor<byte[], byte[]> ECHO = method("Echo", MethodDescriptor.MethodType.UNARY);

    /** A count and a size in ({@link #streamRequest}), that many messages of that size out. */
    static final MethodDescriptor<byte[], byte[]> STREAM = method("Stream",
        MethodDescriptor.MethodType.SERVER_STREAMING);

    /** The stream's request: the message count (a long) and the message size (an int), big-endian. */
    private static final int STREAM_REQUEST_BYTES = Long.BYTES + Integer.BYTES;

    private BenchService()
    {
    }

    private static MethodDescriptor<byte[], byte[]> method(final String name, final MethodDescriptor.MethodType type)
    {
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(type)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    }

    /**
     * @param messages how many messages the server streams back.
     * @param size     the bytes of each.
     * @return the request of {@link #STREAM}.
     */
    static byte[] streamRequest(final long messages, final int size)
    {
        return ByteBuffer.allocate(STREAM_REQUEST_BYTES).putLong(messages).putInt(size).array();
    }

    /**
     * @return the service, for a server builder's {@code addService}.
     */
    static ServerServiceDefinition service()
    {
        return ServerServiceDefinition.builder(SERVICE)
            .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, replies) ->
            {
                replies.onNext(request);
                replies.onCompleted();
            }))
            .addMethod(STREAM, ServerCalls.asyncServerStreamingCall(BenchService::stream))
            .build();
    }

    private static void stream(final byte[] request, final StreamObserver<byte[]> replies)
    {
        if (request.length != STREAM_REQUEST_BYTES)
        {
            replies.onError(Status.INVALID_ARGUMENT.withDescription("a stream request is " + STREAM_REQUEST_BYTES +
                " bytes (count and size), not " + request.length).asRuntimeException());
            return;
        }
        final ByteBuffer fields = ByteBuffer.wrap(request);
        final long messages = fields.getLong();
        final int size = fields.getInt();
        if (messages < 0 || size < 0)
        {
            replies.onError(Status.INVALID_ARGUMENT.withDescription("a stream of " + messages + " messages of " +
                size + " bytes").asRuntimeException());
            return;
        }
        new Streamer((ServerCallStreamObserver<byte[]>)replies, messages, new byte[size]).start();
    }

    /**
     * Sends while the call is ready and stops when it is not, resuming from its on-ready handler: the server
     * never queues more than gRPC's flow control admits, as a well-behaved streaming service does.
     */
    private static final class Streamer implements Runnable
    {
        private final ServerCallStreamObserver<byte[]> replies;
        private final long messages;
        private final byte[] message;
        private long sent;
        private boolean completed;

        Streamer(final ServerCallStreamObserver<byte[]> replies, final long messages, final byte[] message)
        {
            this.replies = replies;
            this.messages = messages;
            this.message = message;
        }

        void start()
        {
            replies.setOnReadyHandler(this);
            run();
        }

        @Override
        public void run()
        {
            while (sent < messages && replies.isReady() && !replies.isCancelled())
            {
                // one array for every message: the marshaller only reads it
                replies.onNext(message);
                sent++;
            }
            if (sent == messages && !completed)
            {
                completed = true;
                replies.onCompleted();
            }
        }
    }
}
