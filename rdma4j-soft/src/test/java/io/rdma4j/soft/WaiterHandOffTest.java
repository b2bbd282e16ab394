package io.rdma4j.soft;

import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.link.ForwardingLink;
import io.rdma4j.soft.link.Link;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The receive role passes between the threads of one device under load: two threads each waiting on a completion
 * channel of their own, a third polling a CQ with a timeout, a fourth busy polling (polling mode), and the progress
 * thread between them, while two senders stream numbered datagrams to each of the four QPs and a fifth thread
 * burns a core. Every datagram must arrive once and in its sender's order (a double receive, a lost or reordered
 * datagram fails here), and every waiter must see its last one (a lost wake-up hangs, which the timeout fails).
 */
@Timeout(150)
class WaiterHandOffTest
{
    private static final int MESSAGES = 1500;
    private static final int WINDOW = 48;
    private static final int SLOTS = 128;
    private static final int SENDERS = 2;

    /** Counts which threads received, by role. */
    private static final class CountingLink extends ForwardingLink
    {
        final Map<String, AtomicLong> receivers = new ConcurrentHashMap<>();

        CountingLink(final Link inner)
        {
            super(inner);
        }

        @Override
        public boolean receive(final ByteBuffer buffer, final DatagramInfo info)
        {
            return counted(inner.receive(buffer, info));
        }

        @Override
        public boolean receiveInPlace(
            final ByteBuffer buffer, final java.lang.foreign.MemorySegment segment, final DatagramInfo info)
        {
            return counted(inner.receiveInPlace(buffer, segment, info));
        }

        private boolean counted(final boolean got)
        {
            if (got)
            {
                receivers.computeIfAbsent(Thread.currentThread().getName(), name -> new AtomicLong()).incrementAndGet();
            }
            return got;
        }
    }

    /** How a consumer thread waits for its QP's completions. */
    private enum Wait
    {
        CHANNEL,
        POLL_WITH_TIMEOUT,
        BUSY_POLL
    }

    /** A UD QP with its own CQ, its receives, and what it has seen of each sender. */
    private static final class Consumer
    {
        final Wait wait;
        final Context context;
        final CompletionChannel channel;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemoryRegion mr;
        final MemorySegment buffer;
        final RecvWr recv = new RecvWr();
        final AtomicInteger[] received = new AtomicInteger[SENDERS];
        final List<String> faults = new ArrayList<>();

        Consumer(final Context context, final Wait wait)
        {
            this.wait = wait;
            this.context = context;
            final ProtectionDomain pd = context.allocPd();
            channel = wait == Wait.CHANNEL ? context.createCompChannel() : null;
            cq = context.createCq(SLOTS * 2, channel, 0);
            qp = UdEndpoint.udQp(pd, cq, new QpCap(4, SLOTS, 1, 1, 0), UdEndpoint.QKEY);
            buffer = Arena.ofShared().allocate(SLOTS * 64L);
            mr = pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE));
            for (int i = 0; i < SENDERS; i++)
            {
                received[i] = new AtomicInteger();
            }
            for (int slot = 0; slot < SLOTS; slot++)
            {
                qp.postRecv(recv.wrId(slot).sge(mr, slot * 64L, 64));
            }
        }

        boolean done()
        {
            for (final AtomicInteger count : received)
            {
                if (count.get() < MESSAGES)
                {
                    return false;
                }
            }
            return true;
        }

        void run()
        {
            final WorkCompletion[] wcs = WorkCompletion.array(16);
            try
            {
                while (!done())
                {
                    final int n = switch (wait)
                    {
                        case CHANNEL -> awaitEvent(wcs);
                        case POLL_WITH_TIMEOUT -> cq.poll(wcs, 30, TimeUnit.SECONDS);
                        case BUSY_POLL -> cq.poll(wcs);
                    };
                    if (n == 0 && wait != Wait.BUSY_POLL)
                    {
                        faults.add("no completion for 30 s with " + describe());
                        return;
                    }
                    if (n == 0)
                    {
                        // two cores: a spinner that never yields starves the threads it waits for
                        Thread.yield();
                    }
                    for (int i = 0; i < n; i++)
                    {
                        take(wcs[i]);
                    }
                }
            }
            catch (final InterruptedException ex)
            {
                faults.add("interrupted");
            }
        }

        /** The event consumer's loop: poll, arm, poll again, sleep; an event may be one a poll already emptied. */
        private int awaitEvent(final WorkCompletion[] wcs) throws InterruptedException
        {
            while (true)
            {
                final int n = cq.poll(wcs);
                if (n > 0)
                {
                    return n;
                }
                cq.requestNotify(false);
                final int late = cq.poll(wcs);
                if (late > 0)
                {
                    return late;
                }
                final CompletionQueue fired = channel.getCqEvent(30, TimeUnit.SECONDS);
                if (fired == null)
                {
                    return 0;
                }
                fired.ackEvents(1);
            }
        }

        private void take(final WorkCompletion wc)
        {
            if (wc.status() != WcStatus.SUCCESS)
            {
                faults.add("completion " + wc.status());
                return;
            }
            final long offset = wc.wrId() * 64 + 40;
            final int sender = buffer.get(ValueLayout.JAVA_INT_UNALIGNED, offset);
            final int seq = buffer.get(ValueLayout.JAVA_INT_UNALIGNED, offset + 4);
            final int expected = received[sender].get();
            if (seq != expected)
            {
                faults.add("sender " + sender + " datagram " + seq + " where " + expected + " was due");
            }
            received[sender].incrementAndGet();
            qp.postRecv(recv.wrId(wc.wrId()).sge(mr, wc.wrId() * 64, 64));
        }

        String describe()
        {
            return wait + " received " + received[0].get() + "/" + received[1].get();
        }
    }

    @ParameterizedTest
    @EnumSource(Fabric.Kind.class)
    void shouldDeliverEveryDatagramOnceAndInOrderWhileTheRoleChangesHands(final Fabric.Kind kind) throws Exception
    {
        final AtomicReference<CountingLink> counting = new AtomicReference<>();
        try (Fabric fabric = new Fabric(kind).pollsInline(true).linkWrapper(link ->
        {
            final CountingLink wrapped = new CountingLink(link);
            counting.compareAndSet(null, wrapped);
            return wrapped;
        }))
        {
            final Context receiving = fabric.open();
            final List<Consumer> consumers = List.of(new Consumer(receiving, Wait.CHANNEL),
                new Consumer(receiving, Wait.CHANNEL), new Consumer(receiving, Wait.POLL_WITH_TIMEOUT),
                new Consumer(receiving, Wait.BUSY_POLL));
            final List<Thread> threads = new ArrayList<>();
            for (final Consumer consumer : consumers)
            {
                threads.add(Thread.ofPlatform().name("consumer-" + consumer.wait + threads.size())
                    .start(consumer::run));
            }
            final AtomicBoolean stop = new AtomicBoolean();
            final Thread burner = Thread.ofPlatform().daemon().start(() ->
            {
                while (!stop.get())
                {
                    Thread.onSpinWait();
                }
            });
            final List<Thread> senders = new ArrayList<>();
            for (int s = 0; s < SENDERS; s++)
            {
                final int sender = s;
                final Context sending = fabric.open();
                senders.add(Thread.ofPlatform().name("sender-" + s).start(() -> send(sending, sender, consumers)));
            }
            for (final Thread thread : senders)
            {
                thread.join(TimeUnit.SECONDS.toMillis(60));
                if (thread.isAlive())
                {
                    final StringBuilder why = new StringBuilder();
                    consumers.forEach(consumer -> why.append(consumer.describe()).append(' ')
                        .append(consumer.faults).append("; "));
                    receiving.counters().forEach((name, value) -> why.append(name).append('=').append(value).append(' '));
                    throw new AssertionError("a sender is stuck at its window: " + why);
                }
            }
            for (final Thread thread : threads)
            {
                thread.join(TimeUnit.SECONDS.toMillis(60));
            }
            stop.set(true);
            burner.join();
            for (final Consumer consumer : consumers)
            {
                assertEquals(List.of(), consumer.faults, consumer.describe());
                assertEquals(MESSAGES, consumer.received[0].get(), consumer.describe());
                assertEquals(MESSAGES, consumer.received[1].get(), consumer.describe());
            }
            assertNull(threads.stream().filter(Thread::isAlive).findFirst().orElse(null),
                "every consumer saw its last datagram; receivers " + counting.get().receivers);
        }
    }

    /** Numbered datagrams to every consumer, at most {@link #WINDOW} ahead of what each has taken. */
    private static void send(final Context sending, final int sender, final List<Consumer> consumers)
    {
        final UdEndpoint endpoint = new UdEndpoint(sending);
        final List<AddressHandle> handles = new ArrayList<>();
        for (final Consumer consumer : consumers)
        {
            handles.add(endpoint.ahTo(consumer.context.queryGid(1, 0)));
        }
        final SendWr wr = new SendWr();
        final WorkCompletion[] wcs = WorkCompletion.array(16);
        for (int seq = 0; seq < MESSAGES; seq++)
        {
            for (int c = 0; c < consumers.size(); c++)
            {
                final Consumer consumer = consumers.get(c);
                while (seq - consumer.received[sender].get() >= WINDOW)
                {
                    Thread.yield();
                }
                // a slot per datagram of the last 16 rounds: a payload sent in place is not overwritten early
                final long offset = ((seq & 15) * 4L + c) * 64;
                endpoint.buffer.set(ValueLayout.JAVA_INT_UNALIGNED, offset, sender);
                endpoint.buffer.set(ValueLayout.JAVA_INT_UNALIGNED, offset + 4, seq);
                // one signalled send in 16: the send queue stays short, its CQ never fills
                wr.wrId(seq).opcode(WrOpcode.SEND).sendFlags((seq & 15) == 0 ? SendFlags.SIGNALED : 0)
                    .sge(endpoint.mr, offset, 8).ud(handles.get(c), consumer.qp.qpNum(), UdEndpoint.QKEY);
                endpoint.qp.postSend(wr);
                endpoint.cq.poll(wcs);
            }
        }
    }
}
