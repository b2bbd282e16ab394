package io.rdma4j.bench.grpc;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;

import java.util.concurrent.CompletableFuture;

/**
 * One server-streaming call: it asks for {@code messages} messages of {@code size} bytes and counts what arrives,
 * timed from the call's start to its completion.
 */
final class StreamRun implements StreamObserver<byte[]>
{
    /**
     * What one stream delivered.
     *
     * @param messages the messages received.
     * @param bytes    their bytes, all together.
     * @param nanos    from the call's start to its completion.
     */
    record Delivered(long messages, long bytes, long nanos)
    {
        /**
         * @return messages a second.
         */
        double rate()
        {
            return messages * 1e9 / nanos;
        }
    }

    private final CompletableFuture<Delivered> done = new CompletableFuture<>();
    private long messages;
    private long bytes;
    private long startedAt;

    private StreamRun()
    {
    }

    /**
     * @param channel  the channel to the bench service.
     * @param messages how many messages to ask for.
     * @param size     the bytes of each.
     * @return completes with what arrived when the server completes the call, or with its failure.
     */
    static CompletableFuture<Delivered> start(final Channel channel, final long messages, final int size)
    {
        final StreamRun run = new StreamRun();
        run.startedAt = System.nanoTime();
        ClientCalls.asyncServerStreamingCall(channel.newCall(BenchService.STREAM, CallOptions.DEFAULT),
            BenchService.streamRequest(messages, size), run);
        return run.done;
    }

    @Override
    public void onNext(final byte[] message)
    {
        messages++;
        bytes += message.length;
    }

    @Override
    public void onCompleted()
    {
        done.complete(new Delivered(messages, bytes, System.nanoTime() - startedAt));
    }

    @Override
    public void onError(final Throwable cause)
    {
        done.completeExceptionally(new IllegalStateException("the stream failed after " + messages + " messages: " +
            cause, cause));
    }
}
