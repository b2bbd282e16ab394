package io.rdma4j.examples.grpc;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The greeter service of gRPC's hello-world, written without protoc: its two methods are described by hand,
 * with messages that are plain UTF-8 strings. {@link #SAY_HELLO} answers a name with one greeting;
 * {@link #CHAT} streams both ways, one greeting for each name the client sends, until the client is done.
 */
public final class Greeter
{
    /** The service's full name, as a {@code .proto} file's package and service would make it. */
    public static final String SERVICE = "rdma4j.examples.Greeter";

    /** Messages are a string's UTF-8 bytes, nothing around them. */
    static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>()
    {
        @Override
        public InputStream stream(final String value)
        {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(final InputStream stream)
        {
            try (stream)
            {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            }
            catch (final IOException ex)
            {
                throw Status.INTERNAL.withDescription("cannot read a message").withCause(ex).asRuntimeException();
            }
        }
    };

    /** A name in, a greeting out. */
    public static final MethodDescriptor<String, String> SAY_HELLO = method("SayHello", MethodDescriptor.MethodType.UNARY);

    /** Names in, a greeting for each out, as they come. */
    public static final MethodDescriptor<String, String> CHAT = method("Chat", MethodDescriptor.MethodType.BIDI_STREAMING);

    private Greeter()
    {
    }

    private static MethodDescriptor<String, String> method(final String name, final MethodDescriptor.MethodType type)
    {
        return MethodDescriptor.<String, String>newBuilder().setType(type)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
            .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();
    }

    /**
     * @param name a name.
     * @return what the service answers to it, naming the process that answers.
     */
    public static String greeting(final String name)
    {
        return "Hello " + name + ", from process " + ProcessHandle.current().pid();
    }

    /**
     * @return the service, for a server builder's {@code addService}.
     */
    public static ServerServiceDefinition service()
    {
        return ServerServiceDefinition.builder(SERVICE)
            .addMethod(SAY_HELLO, ServerCalls.asyncUnaryCall((name, replies) ->
            {
                replies.onNext(greeting(name));
                replies.onCompleted();
            }))
            .addMethod(CHAT, ServerCalls.asyncBidiStreamingCall(replies -> new StreamObserver<String>()
            {
                @Override
                public void onNext(final String name)
                {
                    replies.onNext(greeting(name));
                }

                @Override
                public void onError(final Throwable cause)
                {
                    // the client cancelled or its connection went: nobody is left to answer
                }

                @Override
                public void onCompleted()
                {
                    replies.onCompleted();
                }
            }))
            .build();
    }
}
