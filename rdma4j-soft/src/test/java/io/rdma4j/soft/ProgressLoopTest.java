package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.transport.QpTransport;
import io.rdma4j.soft.transport.Transports;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.verbs.Context;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The progress loop survives whatever a packet's handling throws, Errors included: it counts each
 * in progress_errors, logs the first with its stack trace and the rest at most once a second, and
 * delivers the next packet.
 */
@Timeout(60)
class ProgressLoopTest
{
    @Test
    void shouldSurviveAnErrorOnOnePacketAndDeliverTheNext()
    {
        final AtomicReference<Error> fault = new AtomicReference<>();
        final AtomicLong clock = new AtomicLong(1_000_000_000L);
        final CapturingLogger logger = new CapturingLogger();
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final UdEndpoint sender = new UdEndpoint(fabric.open());
            final UdEndpoint receiver = new UdEndpoint(faulty(fabric, 90, fault, clock::get, logger));
            receiver.postRecvs(4);
            final SoftEngine engine = SoftEngine.of(receiver.context);

            fault.set(new StackOverflowError("injected"));
            sender.send(sender.ahTo(receiver.gid()), receiver.qp.qpNum(), UdEndpoint.QKEY, "one", 1);
            awaitErrors(engine, 1);
            sender.send(sender.ahTo(receiver.gid()), receiver.qp.qpNum(), UdEndpoint.QKEY, "two", 2);
            assertEquals("two", receiver.text(receiver.poll(1, 10_000).getFirst()));
            assertEquals(1, engine.counters().get(SoftCounter.PROGRESS_ERRORS));
            assertEquals(1, logger.records.size());
            assertInstanceOf(StackOverflowError.class, logger.records.getFirst().thrown);

            // a second error within the second is counted, not logged
            fault.set(new OutOfMemoryError("injected"));
            sender.send(sender.ahTo(receiver.gid()), receiver.qp.qpNum(), UdEndpoint.QKEY, "three", 3);
            awaitErrors(engine, 2);
            assertEquals(1, logger.records.size());

            // a second later, the next one brings a line with the count and no stack trace
            clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
            fault.set(new InternalError("injected"));
            sender.send(sender.ahTo(receiver.gid()), receiver.qp.qpNum(), UdEndpoint.QKEY, "four", 4);
            awaitErrors(engine, 3);
            assertEquals(2, logger.records.size());
            final Record line = logger.records.get(1);
            assertNull(line.thrown);
            assertTrue(line.message.contains("2 more"), line.message);
            assertTrue(line.message.contains("InternalError"), line.message);

            sender.send(sender.ahTo(receiver.gid()), receiver.qp.qpNum(), UdEndpoint.QKEY, "five", 5);
            assertEquals("five", receiver.text(receiver.poll(1, 10_000).getFirst()));
            assertEquals(3, engine.counters().get(SoftCounter.PROGRESS_ERRORS));
        }
    }

    @Test
    void shouldSurviveAnErrorOnAPollingThread()
    {
        final AtomicReference<Error> fault = new AtomicReference<>();
        final CapturingLogger logger = new CapturingLogger();
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final UdEndpoint sender = new UdEndpoint(fabric.open());
            // polling mode without a progress thread: only this thread's polls receive
            final Context context = SoftDevice.builder("faulty91", fabric.address(91))
                .link(address -> fabric.network().attach(address))
                .transports(qp -> new Faulty(Transports.create(qp), fault))
                .pollsInline(true)
                .progressThread(false)
                .logger(logger)
                .build().open();
            fabric.adopt(context);
            final UdEndpoint receiver = new UdEndpoint(context);
            receiver.postRecvs(2);
            final SoftEngine engine = SoftEngine.of(context);

            fault.set(new StackOverflowError("injected"));
            sender.send(sender.ahTo(receiver.gid()), receiver.qp.qpNum(), UdEndpoint.QKEY, "lost", 1);
            sender.send(sender.ahTo(receiver.gid()), receiver.qp.qpNum(), UdEndpoint.QKEY, "kept", 2);
            assertEquals("kept", receiver.text(receiver.poll(1, 10_000).getFirst()));
            assertEquals(1, engine.counters().get(SoftCounter.PROGRESS_ERRORS));
            assertEquals(1, logger.records.size());
            assertInstanceOf(StackOverflowError.class, logger.records.getFirst().thrown);
        }
    }

    /** A device on the fabric whose QPs' transports throw the armed fault on the next packet. */
    static Context faulty(final Fabric fabric, final int host, final AtomicReference<Error> fault,
        final LongSupplier clock, final System.Logger logger)
    {
        final Context context = SoftDevice.builder("faulty" + host, fabric.address(host))
            .link(address -> fabric.network().attach(address))
            .transports(qp -> new Faulty(Transports.create(qp), fault))
            .clock(clock)
            .logger(logger)
            .build().open();
        fabric.adopt(context);
        return context;
    }

    private static void awaitErrors(final SoftEngine engine, final long count)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (engine.counters().get(SoftCounter.PROGRESS_ERRORS) < count && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertEquals(count, engine.counters().get(SoftCounter.PROGRESS_ERRORS));
    }

    /** Throws the fault it is given from the next packet's handling, once. */
    private static final class Faulty extends ForwardingTransport
    {
        private final AtomicReference<Error> fault;

        Faulty(final QpTransport transport, final AtomicReference<Error> fault)
        {
            super(transport);
            this.fault = fault;
        }

        @Override
        public void onPacket(final PacketInfo packet, final DatagramInfo datagram)
        {
            final Error error = fault.getAndSet(null);
            if (error != null)
            {
                throw error;
            }
            super.onPacket(packet, datagram);
        }
    }

    record Record(System.Logger.Level level, String message, Throwable thrown)
    {
    }

    /** Keeps what is logged. */
    static final class CapturingLogger implements System.Logger
    {
        final List<Record> records = new CopyOnWriteArrayList<>();

        @Override
        public String getName()
        {
            return "capture";
        }

        @Override
        public boolean isLoggable(final Level level)
        {
            return true;
        }

        @Override
        public void log(final Level level, final ResourceBundle bundle, final String msg, final Throwable thrown)
        {
            records.add(new Record(level, msg, thrown));
        }

        @Override
        public void log(final Level level, final ResourceBundle bundle, final String format, final Object... params)
        {
            records.add(new Record(level, format, null));
        }
    }
}
