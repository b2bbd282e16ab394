package io.rdma4j.rdmacore;

import io.rdma4j.spi.Counted;
import io.rdma4j.rdmacore.abi.IbvCompChannel;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WaitDriver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

/**
 * A completion channel ({@code struct ibv_comp_channel *}). Its file descriptor is made non-blocking and
 * waited on with {@code poll}, so a waiting thread sleeps in the kernel on the descriptor rather than inside
 * {@code ibv_get_cq_event}, wakes up for an interrupt, and a thread that loses the race for an event to
 * another goes back to waiting instead of blocking in {@code read}. An eventfd polled beside it lets
 * {@link #wakeup()} end a wait from another thread.
 * <p>
 * In a {@link io.rdma4j.verbs.WaitSet} its descriptor is what the set's thread sleeps on ({@link DescriptorWait}),
 * beside any other member's; it is ready when the descriptor is readable.
 */
public final class NativeCompChannel implements CompletionChannel
{
    private final NativeContext context;
    private final MemorySegment channel;
    private final int fd;
    private final int wakeFd;
    private int cqs;
    private volatile boolean closed;
    /** A WaitSet's watcher (told at a wake-up and at the close) and the set's wait in poll. */
    private final SetMembership membership = new SetMembership("the completion channel");

    NativeCompChannel(final NativeContext context, final MemorySegment channel)
    {
        this.context = context;
        this.channel = channel.reinterpret(IbvCompChannel.LAYOUT.byteSize());
        this.fd = this.channel.get(ValueLayout.JAVA_INT, IbvCompChannel.FD);
        Libc.setNonBlocking(fd);
        this.wakeFd = Libc.eventfd();
    }

    /**
     * @return the {@code struct ibv_comp_channel *}.
     */
    public MemorySegment address()
    {
        return channel;
    }

    /**
     * @return the channel's file descriptor, readable when a CQ event is waiting.
     */
    public int fd()
    {
        return fd;
    }

    @Override
    public NativeContext context()
    {
        return context;
    }

    @Override
    public NativeCq getCqEvent(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        checkOpen();
        final long deadline = Libc.deadline(timeout, unit);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment cq = arena.allocate(ValueLayout.ADDRESS);
            final MemorySegment cqContext = arena.allocate(ValueLayout.ADDRESS);
            while (Libc.awaitReadable(fd, wakeFd, deadline) == Libc.READABLE)
            {
                checkOpen();
                final int errno = Ibverbs.errno("ibv_get_cq_event", channel, cq, cqContext);
                if (errno == Errno.EAGAIN.code())
                {
                    continue;
                }
                if (errno != 0)
                {
                    throw NativeErrors.exception(errno, "ibv_get_cq_event");
                }
                final NativeCq found = (NativeCq)context.lookup(cq.get(ValueLayout.ADDRESS, 0).address());
                if (found == null)
                {
                    throw new RdmaException(Errno.EIO, "ibv_get_cq_event named a CQ this context did not create");
                }
                found.eventDelivered();
                return found;
            }
            return null;
        }
    }

    @Override
    public void wakeup()
    {
        synchronized (this)
        {
            // synchronized with close: the eventfd's number must not be reused by then
            checkOpen();
            Libc.signal(wakeFd);
        }
        membership.tell();
    }

    /**
     * @return whether {@code poll} finds the descriptor readable now: an event is waiting.
     */
    @Override
    public boolean isReady()
    {
        return !closed && membership.isReady(fd);
    }

    @Override
    public void watch(final Runnable setWatcher)
    {
        membership.watch(setWatcher);
    }

    @Override
    public int descriptor()
    {
        return closed ? -1 : fd;
    }

    /**
     * @return the set's sleep in {@code poll(2)} over this and the set's other descriptors; null once destroyed.
     */
    @Override
    public WaitDriver waitDriver()
    {
        return membership.driver();
    }

    synchronized void addCq()
    {
        cqs++;
    }

    synchronized void removeCq()
    {
        cqs--;
    }

    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                throw new RdmaException(Errno.EINVAL, "the completion channel is already destroyed");
            }
            if (cqs > 0)
            {
                throw new RdmaException(Errno.EBUSY, "the completion channel still serves " + Counted.of(cqs, "CQ"));
            }
            Ibverbs.check("ibv_destroy_comp_channel", "ibv_destroy_comp_channel", channel);
            closed = true;
        }
        Libc.close(wakeFd);
        membership.close();
        context.release();
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new RdmaException(Errno.EINVAL, "the completion channel is destroyed");
        }
    }
}
