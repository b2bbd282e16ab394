package io.rdma4j.soft;

import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.transport.QpTransport;
import io.rdma4j.soft.transport.Transports;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No timer deadline is lost. A posting thread arms its QP's retransmission timer whenever it likes,
 * also while the progress thread runs every QP's timers and has already looked at that QP; the timer
 * must still fire when due, or a QP whose request (or its ACK) was dropped waits forever for a
 * retransmission. Here the race is scripted: the device has no progress thread, the test drives
 * {@link SoftEngine#doWork} with its own clock, and each QP's timers are a script that can arm another
 * QP's timer from inside the run.
 */
@Timeout(60)
class DeviceTimersTest
{
    private static final long NONE = Long.MAX_VALUE;

    @Test
    void shouldFireATimerArmedWhileTheTimersRunAfterTheRunVisitedItsQp()
    {
        final AtomicLong clock = new AtomicLong(TimeUnit.SECONDS.toNanos(5));
        final long deadline = clock.get() + TimeUnit.MILLISECONDS.toNanos(10);
        final List<ScriptedTimers> qps = new ArrayList<>();
        final List<ScriptedTimers> visits = new ArrayList<>();
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context context = SoftDevice.builder("timers", fabric.address(72))
                .link(address -> fabric.network().attach(address))
                .clock(clock::get)
                .progressThread(false)
                .transports(qp ->
                {
                    final ScriptedTimers timers = new ScriptedTimers(Transports.create(qp), visits);
                    qps.add(timers);
                    return timers;
                })
                .build().open();
            fabric.adopt(context);
            final SoftEngine engine = SoftEngine.of(context);
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(16, null, 0);
            pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)));
            pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)));
            assertEquals(2, qps.size());

            // whichever QP the run visits second arms the timer of the one it visited first, as a thread
            // posting on that QP would at that moment
            final Runnable armTheFirst = () ->
            {
                if (visits.size() == 2)
                {
                    final ScriptedTimers first = visits.getFirst();
                    first.deadline = deadline;
                    engine.timerArmed(deadline);
                }
            };
            qps.forEach(qp -> qp.duringNextVisit = armTheFirst);
            engine.wakeup();
            engine.doWork();
            assertEquals(2, visits.size(), "the run visited both QPs");
            final ScriptedTimers armed = visits.getFirst();

            visits.clear();
            clock.set(deadline - 1);
            engine.doWork();
            assertTrue(visits.isEmpty(), "the timers ran before any was due: " + visits.size() + " visits");

            clock.set(deadline);
            engine.doWork();
            assertTrue(visits.contains(armed), "the timer armed during the run never ran");
            assertEquals(List.of(deadline), armed.fired, "it fired once, when due");
        }
    }

    /** A QP's transport whose timers are the test's: everything else is the real transport's. */
    private static final class ScriptedTimers extends ForwardingTransport
    {
        private final List<ScriptedTimers> visits;
        private final List<Long> fired = new ArrayList<>();
        private long deadline = NONE;
        private Runnable duringNextVisit;

        ScriptedTimers(final QpTransport transport, final List<ScriptedTimers> visits)
        {
            super(transport);
            this.visits = visits;
        }

        @Override
        public long onTimer(final long nowNs)
        {
            visits.add(this);
            final Runnable action = duringNextVisit;
            duringNextVisit = null;
            if (action != null)
            {
                action.run();
            }
            if (deadline <= nowNs)
            {
                fired.add(nowNs);
                deadline = NONE;
            }
            return deadline;
        }
    }
}
