package io.rdma4j.bench.grpc;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import org.HdrHistogram.Histogram;

import java.util.concurrent.CompletableFuture;

/**
 * Unary calls one at a time, each started from the callback that completed the last (on the event loop, with the
 * channel's {@code directExecutor()}), so that no thread hand-off of the benchmark's own is timed, as
 * bench-netty's ping-pong does. A call is timed from its start to its completion (the response and the trailers);
 * the first {@code warmup} are not recorded. Every response must be the request's bytes back.
 */
final class UnaryLoop implements StreamObserver<byte[]>
{
    private final Channel channel;
    private final byte[] request;
    private final int warmup;
    private final int calls;
    private final Histogram histogram;
    private final CompletableFuture<Histogram> done = new CompletableFuture<>();
    private int started;
    private long startedAt;
    private int responses;

    /**
     * @param channel   the channel to the bench service.
     * @param size      the request's bytes.
     * @param warmup    calls before recording.
     * @param calls     calls recorded.
     * @param histogram where the calls' times go, in nanoseconds.
     */
    UnaryLoop(final Channel channel, final int size, final int warmup, final int calls, final Histogram histogram)
    {
        this.channel = channel;
        this.request = new byte[size];
        this.warmup = warmup;
        this.calls = calls;
        this.histogram = histogram;
    }

    /**
     * @return completes with the histogram after the last call, or with the first failure.
     */
    CompletableFuture<Histogram> start()
    {
        next();
        return done;
    }

    private void next()
    {
        started++;
        responses = 0;
        startedAt = System.nanoTime();
        ClientCalls.asyncUnaryCall(channel.newCall(BenchService.ECHO, CallOptions.DEFAULT), request, this);
    }

    @Override
    public void onNext(final byte[] response)
    {
        responses++;
        if (response.length != request.length)
        {
            done.completeExceptionally(new IllegalStateException("call " + started + " was answered with " +
                response.length + " bytes, not its request's " + request.length));
        }
    }

    @Override
    public void onCompleted()
    {
        final long now = System.nanoTime();
        if (done.isDone())
        {
            return;
        }
        if (responses != 1)
        {
            done.completeExceptionally(new IllegalStateException("call " + started + " completed after " +
                responses + " responses"));
            return;
        }
        if (started > warmup)
        {
            histogram.recordValue(now - startedAt);
        }
        if (started < warmup + calls)
        {
            next();
        }
        else
        {
            done.complete(histogram);
        }
    }

    @Override
    public void onError(final Throwable cause)
    {
        done.completeExceptionally(new IllegalStateException("call " + started + " failed: " + cause, cause));
    }
}
