package io.rdma4j.soft;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.ForwardingLink;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.link.TestLinks;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RC keepalive (issue 43, item 4) over UDP, the same-host path off, as between two hosts: an idle connection
 * whose peer vanished without a word (its device sends nothing any more, as a host pulled from the network)
 * goes to ERR within the idle time and the probes' retries, and a live peer answers every probe without a
 * completion or a receive taken on either side. Both devices run without a progress thread on a clock the test
 * moves, so no test waits real seconds.
 */
@Timeout(60)
class KeepaliveTest
{
    private static final long IDLE_MS = 1000;
    private static final long IDLE_NS = TimeUnit.MILLISECONDS.toNanos(IDLE_MS);
    /** 4.096 us << 14: about 67 ms between unanswered probes. */
    private static final int TIMEOUT = 14;
    private static final long TIMEOUT_NS = 4096L << TIMEOUT;
    private static final int RETRY_CNT = 3;
    private static final long STEP_NS = TimeUnit.MILLISECONDS.toNanos(5);

    private final AtomicLong clock = new AtomicLong(TimeUnit.SECONDS.toNanos(5));
    private final List<SoftDevice> devices = new ArrayList<>();
    private final List<CutLink> links = new ArrayList<>();
    private final int subnet = TestNet.nextSubnet();

    @AfterEach
    void shutdown()
    {
        devices.forEach(SoftDevice::shutdown);
    }

    @Test
    void shouldFailAnIdleConnectionWhosePeerVanished()
    {
        final RcEndpoint a = endpoint(1, IDLE_MS, null);
        final CutLink[] peerLink = new CutLink[1];
        final RcEndpoint b = endpoint(2, 0, peerLink);
        RcConnectSettings.defaults().timeout(TIMEOUT).retryCount(RETRY_CNT).connect(a, b);
        a.qp.postRecv(new RecvWr().wrId(41).sge(a.mr, 0, 64));
        final long start = clock.get();

        peerLink[0].cut = true;
        final long[] failedAt = {0};
        drive(a, b, () ->
        {
            failedAt[0] = clock.get();
            return a.qp.state() == QpState.ERR;
        }, IDLE_NS + (RETRY_CNT + 2) * TIMEOUT_NS);

        final long elapsed = failedAt[0] - start;
        assertTrue(elapsed >= IDLE_NS + (RETRY_CNT + 1) * TIMEOUT_NS,
            "failed after " + elapsed + " ns, before the idle time and every probe's timeout");
        assertEquals(RETRY_CNT + 1, a.counter(SoftCounter.KEEPALIVE_PROBES), "the probe and its retries");
        assertEquals(0, a.counter(SoftCounter.KEEPALIVE_ANSWERED));
        assertEquals(1, a.counter(SoftCounter.KEEPALIVE_TIMEOUTS));
        assertEquals(1, a.counter(SoftCounter.RETRY_EXCEEDED_ERR));
        final List<WorkCompletion> flushed = a.pollRecv(1, 1000);
        assertEquals(1, flushed.size(), "the idle side's receive flushes, as a reader learns of the failure");
        assertEquals(41, flushed.getFirst().wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, flushed.getFirst().status());
        assertEquals(QpState.RTS, b.qp.state(), "the vanished side knows nothing");
    }

    @Test
    void shouldKeepAnIdleConnectionToALivePeerUpAcrossProbes()
    {
        final RcEndpoint a = endpoint(1, IDLE_MS, null);
        final RcEndpoint b = endpoint(2, 0, null);
        RcConnectSettings.defaults().timeout(TIMEOUT).retryCount(RETRY_CNT).connect(a, b);
        b.qp.postRecv(new RecvWr().wrId(42).sge(b.mr, 0, 64));

        final int periods = 5;
        final long until = clock.get() + periods * (IDLE_NS + TIMEOUT_NS) + STEP_NS;
        drive(a, b, () -> clock.get() >= until, until - clock.get() + STEP_NS);

        final long probes = a.counter(SoftCounter.KEEPALIVE_PROBES);
        assertTrue(probes >= periods - 1, "probes sent: " + probes);
        assertEquals(probes, a.counter(SoftCounter.KEEPALIVE_ANSWERED), "every probe answered");
        assertEquals(probes, b.counter(SoftCounter.DUPLICATE_REQUEST), "each probe a duplicate at the peer");
        assertEquals(0, a.counter(SoftCounter.KEEPALIVE_TIMEOUTS));
        assertEquals(0, a.counter(SoftCounter.DROP_UNEXPECTED_RESPONSE), "no answer reached the completer");
        assertEquals(QpState.RTS, a.qp.state());
        assertEquals(QpState.RTS, b.qp.state());
        final WorkCompletion[] wcs = WorkCompletion.array(4);
        assertEquals(0, a.sendCq.poll(wcs) + a.recvCq.poll(wcs) + b.sendCq.poll(wcs) + b.recvCq.poll(wcs),
            "a probe made a completion");

        // the PSNs are where they were: the next SEND takes the receive the probes left alone
        a.buffer.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 0x1234_5678_9abcL);
        a.qp.postSend(new SendWr().wrId(7).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sge(a.mr, 0, 8));
        final List<WorkCompletion> received = new ArrayList<>();
        final List<WorkCompletion> sent = new ArrayList<>();
        drive(a, b, () ->
        {
            received.addAll(pollOnce(b));
            sent.addAll(pollOnceSend(a));
            return !received.isEmpty() && !sent.isEmpty();
        }, 0);
        assertEquals(42, received.getFirst().wrId());
        assertEquals(WcOpcode.RECV, received.getFirst().opcode());
        assertEquals(WcStatus.SUCCESS, received.getFirst().status());
        assertEquals(0x1234_5678_9abcL, b.buffer.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0));
        assertEquals(WcStatus.SUCCESS, sent.getFirst().status());
    }

    @Test
    void shouldNotProbeAPeerThatSpeaks()
    {
        final RcEndpoint a = endpoint(1, IDLE_MS, null);
        final RcEndpoint b = endpoint(2, 0, null);
        RcConnectSettings.defaults().timeout(TIMEOUT).retryCount(RETRY_CNT).connect(a, b);
        // the peer WRITEs into a's buffer every half idle time: a hears it and never needs to probe
        for (int i = 0; i < 6; i++)
        {
            final long next = clock.get() + IDLE_NS / 2;
            drive(a, b, () -> clock.get() >= next, IDLE_NS);
            b.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sge(b.mr, 0, 8).rdma(a.mr.address(), a.mr.rkey()));
            final List<WorkCompletion> done = new ArrayList<>();
            drive(a, b, () ->
            {
                done.addAll(pollOnceSend(b));
                return !done.isEmpty();
            }, 0);
            assertEquals(WcStatus.SUCCESS, done.getFirst().status());
        }
        assertEquals(0, a.counter(SoftCounter.KEEPALIVE_PROBES), "probed a peer heard from within the idle time");
    }

    /**
     * Move the clock a step at a time, each step's packets delivered before the next (UDP on loopback takes real
     * microseconds), until {@code done}; a bound of 0 does not move the clock.
     */
    private void drive(final RcEndpoint a, final RcEndpoint b, final BooleanSupplier done, final long boundNs)
    {
        final long limit = clock.get() + boundNs;
        final SoftEngine ea = a.engine();
        final SoftEngine eb = b.engine();
        final long realDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!done.getAsBoolean())
        {
            assertTrue(System.nanoTime() < realDeadline, "not done in real time");
            if (boundNs > 0)
            {
                assertTrue(clock.get() < limit, "not done within " + boundNs + " ns of the device clock");
                clock.addAndGet(STEP_NS);
            }
            settle(ea, eb, realDeadline);
        }
    }

    /** Run both engines until neither has anything to do and no datagram either sent is still on its way. */
    private void settle(final SoftEngine ea, final SoftEngine eb, final long realDeadline)
    {
        while (true)
        {
            final int work = ea.doWork() + eb.doWork();
            final long sent = links.stream().mapToLong(l -> l.passed.get()).sum();
            final long heard = ea.counters().get(SoftCounter.UDP_RCVD_PKTS) +
                eb.counters().get(SoftCounter.UDP_RCVD_PKTS);
            if (work == 0 && heard >= sent)
            {
                return;
            }
            assertTrue(System.nanoTime() < realDeadline, "packets still on their way: sent " + sent +
                ", received " + heard);
        }
    }

    private static List<WorkCompletion> pollOnce(final RcEndpoint endpoint)
    {
        return poll(endpoint.recvCq);
    }

    private static List<WorkCompletion> pollOnceSend(final RcEndpoint endpoint)
    {
        return poll(endpoint.sendCq);
    }

    private static List<WorkCompletion> poll(final io.rdma4j.verbs.CompletionQueue cq)
    {
        final WorkCompletion[] wcs = WorkCompletion.array(4);
        final int n = cq.poll(wcs);
        final List<WorkCompletion> got = new ArrayList<>();
        for (int i = 0; i < n; i++)
        {
            got.add(new WorkCompletion().copyFrom(wcs[i]));
        }
        return got;
    }

    private RcEndpoint endpoint(final int host, final long keepaliveMs, final CutLink[] cutLink)
    {
        final InetAddress address = TestNet.address(subnet, host);
        final SoftDevice device = SoftDevice.builder("ka" + subnet + "_" + host, address)
            .settings(SoftSettings.builder().keepaliveMillis(keepaliveMs).build())
            .sameHost(false)
            .link(at ->
            {
                final CutLink link = new CutLink(TestLinks.open(at));
                links.add(link);
                if (cutLink != null)
                {
                    cutLink[0] = link;
                }
                return link;
            })
            .clock(clock::get)
            .progressThread(false)
            .pollsInline(false)
            .waitsInline(false)
            .build();
        devices.add(device);
        final Context context = device.open();
        return new RcEndpoint(context, QpType.RC, 4096, 8);
    }

    /** A link that, once cut, sends nothing: its host is gone from the network without a word. */
    static final class CutLink extends ForwardingLink
    {
        volatile boolean cut;
        /** Datagrams handed on to the socket. */
        final AtomicLong passed = new AtomicLong();

        CutLink(final Link inner)
        {
            super(inner);
        }

        @Override
        public boolean send(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
        {
            return cut ? lost(datagram) : passed(inner.send(datagram, destination, hopLimit));
        }

        @Override
        public boolean queue(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
        {
            return cut ? lost(datagram) : passed(inner.queue(datagram, destination, hopLimit));
        }

        @Override
        public boolean queueGathered(
            final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
            final ByteBuffer tail, final InetAddress destination, final int hopLimit)
        {
            return cut ? lost(tail) :
                passed(inner.queueGathered(head, payload, payloadOffset, payloadLength, tail, destination, hopLimit));
        }

        private boolean passed(final boolean queued)
        {
            if (queued)
            {
                passed.incrementAndGet();
            }
            return queued;
        }

        private static boolean lost(final ByteBuffer datagram)
        {
            datagram.position(datagram.limit());
            return true;
        }
    }
}
