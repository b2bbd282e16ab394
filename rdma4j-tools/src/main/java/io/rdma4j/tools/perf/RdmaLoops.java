package io.rdma4j.tools.perf;

import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcFlags;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.HdrHistogram.Histogram;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * The measured loops of every test on rdma4j, both sides. The client initiates and measures; the
 * server answers (SEND and WRITE ping-pongs, SEND streams) or only keeps its QP alive (READ, WRITE
 * streams, atomics, where the responder is the device's own). Nothing in a loop allocates: one
 * reusable work request, the peer's completion array, the histogram's preallocated counts.
 */
final class RdmaLoops
{
    /** The byte write_lat's receiver watches, read with volatile semantics: the device writes it. */
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    /** Payload per packet at the loopback MTU. */
    private static final int PACKET_PAYLOAD = 4096;
    /** What one such packet costs in a Linux socket buffer (payload plus bookkeeping), rounded up. */
    private static final int PACKET_COST = 8192;
    /** Socket-buffer bytes an unreliable SEND stream may fill: a quarter of a 4 MiB receive buffer. */
    private static final long UNRELIABLE_WINDOW_BYTES = 1 << 20;

    private final RdmaPeer peer;
    private final PerfConfig cfg;
    private final SendWr wr = new SendWr();
    /** The bandwidth client's requests: -l of them go in one chain (one, without -l); {@link #wr} is not one of them. */
    private final SendWr[] list;
    private final SendWr credit = new SendWr();
    private final IdleSpin spin = new IdleSpin();
    private long sendsPosted;
    private long sendsDone;
    private long recvsDone;
    private int lastImm;

    /**
     * @param peer the connected resources.
     * @param cfg  the run.
     */
    RdmaLoops(final RdmaPeer peer, final PerfConfig cfg)
    {
        this.peer = peer;
        this.cfg = cfg;
        this.list = new SendWr[cfg.postList()];
        for (int i = 0; i < list.length; i++)
        {
            list[i] = new SendWr();
        }
    }

    /**
     * Prepare {@link #wr} for one size: opcode, payload, remote address, inline when it fits.
     */
    private void prepare(final int size, final int qp)
    {
        prepare(wr, size, qp);
    }

    private void prepare(final SendWr target, final int size, final int qp)
    {
        final PerfTest test = cfg.test();
        final int length = test == PerfTest.ATOMIC_LAT ? Long.BYTES : size;
        int flags = SendFlags.SIGNALED;
        if (length <= cfg.inline() && test.opcode() != WrOpcode.RDMA_READ && test != PerfTest.ATOMIC_LAT)
        {
            flags |= SendFlags.INLINE;
        }
        target.wrId(RdmaPeer.SEND_WRID).opcode(test.opcode()).sendFlags(flags)
            .sge(peer.mr(), peer.sourceOffset(), length);
        if (test.opcode() != WrOpcode.SEND)
        {
            target.rdma(peer.remote().address(), peer.remote().rkey());
        }
        if (test == PerfTest.ATOMIC_LAT)
        {
            target.atomic(1, 0);
        }
        aim(target, qp);
    }

    private void aim(final SendWr target, final int qp)
    {
        if (cfg.transport() == QpType.UD)
        {
            target.ud(peer.ah(), peer.remote().qpns()[qp], peer.remoteQkey());
        }
    }

    /**
     * Take the completions of one {@link RdmaPeer#await()}: count them and repost each receive.
     */
    private void reap(final int n)
    {
        final WorkCompletion[] wcs = peer.completions();
        for (int i = 0; i < n; i++)
        {
            final WorkCompletion wc = wcs[i];
            if (wc.wrId() == RdmaPeer.RECV_WRID)
            {
                recvsDone++;
                if (wc.opcode() == WcOpcode.RECV && (wc.wcFlags() & WcFlags.WITH_IMM) != 0)
                {
                    lastImm = wc.immData();
                }
                peer.postRecvs(qpIndex(wc.qpNum()), 1, cfg.maxSize());
            }
            else
            {
                sendsDone++;
            }
        }
    }

    private int qpIndex(final int qpn)
    {
        for (int i = 0; i < peer.qpCount(); i++)
        {
            if (peer.qp(i).qpNum() == qpn)
            {
                return i;
            }
        }
        return 0;
    }

    private void post(final int qp)
    {
        peer.qp(qp).postSend(wr);
        sendsPosted++;
    }

    private void postList(final int size, final int qp, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            prepare(list[i], size, qp);
        }
        peer.qp(qp).postSend(chain(list, length));
        sendsPosted += length;
    }

    /**
     * Link the first {@code length} requests of {@code list} into one chain (-l), the last ending it.
     *
     * @return the chain's head, {@code list[0]}.
     */
    static SendWr chain(final SendWr[] list, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            list[i].next(i + 1 < length ? list[i + 1] : null);
        }
        return list[0];
    }

    private void awaitSendRoom(final long inFlight) throws PerfException, InterruptedException
    {
        while (sendsPosted - sendsDone >= inFlight)
        {
            reap(peer.await());
        }
    }

    /**
     * The client of a latency test: {@code total} exchanges, the last {@code total - warmup} recorded.
     *
     * @param size   the message size.
     * @param total  exchanges, warm-up included.
     * @param warmup exchanges not recorded.
     * @param into   the histogram (ns).
     * @throws PerfException if a completion fails or the peer stops.
     * @throws InterruptedException if interrupted while sleeping on events.
     */
    void latencyClient(final int size, final int total, final int warmup, final Histogram into)
        throws PerfException, InterruptedException
    {
        latencyClient(size, 0, total, warmup, into);
    }

    /**
     * As {@link #latencyClient(int, int, int, Histogram)}, for one block of a run that alternates with the baseline:
     * the exchanges are numbered from {@code first}, as the server's block numbers them, so that write_lat's marks
     * go on from the block before.
     *
     * @param first the number of the block's first exchange.
     */
    void latencyClient(final int size, final int first, final int total, final int warmup, final Histogram into)
        throws PerfException, InterruptedException
    {
        prepare(size, 0);
        final PerfTest test = cfg.test();
        for (int i = 0; i < total; i++)
        {
            final long start = System.nanoTime();
            switch (test)
            {
                case SEND_LAT -> sendPing();
                case WRITE_LAT -> writePing(size, first + i);
                default -> requestOnce();
            }
            final long rtt = System.nanoTime() - start;
            if (i >= warmup)
            {
                into.recordValue(test.halvesRoundTrip() ? rtt / 2 : rtt);
            }
        }
        drainSends();
    }

    /**
     * The server of a latency test, for one block of a run that alternates with the baseline: answer {@code total}
     * pings (SEND and WRITE), numbered from {@code first} as the client's block numbers them (see
     * {@link #latencyClient(int, int, int, int, Histogram)}); READ and atomics need nothing from it.
     *
     * @param size  the message size.
     * @param first the number of the block's first exchange.
     * @param total exchanges.
     * @throws PerfException if a completion fails or the client stops.
     * @throws InterruptedException if interrupted while sleeping on events.
     */
    void latencyServer(final int size, final int first, final int total) throws PerfException, InterruptedException
    {
        prepare(size, 0);
        final PerfTest test = cfg.test();
        for (int i = 0; i < total; i++)
        {
            if (test == PerfTest.SEND_LAT)
            {
                final long want = recvsDone + 1;
                while (recvsDone < want)
                {
                    reap(peer.await());
                }
                awaitSendRoom(cfg.txDepth());
                post(0);
            }
            else if (test == PerfTest.WRITE_LAT)
            {
                awaitByte(size, first + i);
                awaitSendRoom(cfg.txDepth());
                peer.buffer().set(ValueLayout.JAVA_BYTE, peer.sourceOffset() + size - 1, mark(first + i));
                post(0);
            }
        }
        drainSends();
    }

    private void sendPing() throws PerfException, InterruptedException
    {
        final long recvWant = recvsDone + 1;
        awaitSendRoom(cfg.txDepth());
        post(0);
        final long sendWant = sendsPosted;
        while (recvsDone < recvWant || sendsDone < sendWant)
        {
            reap(peer.await());
        }
    }

    private void writePing(final int size, final int i) throws PerfException, InterruptedException
    {
        awaitSendRoom(cfg.txDepth());
        peer.buffer().set(ValueLayout.JAVA_BYTE, peer.sourceOffset() + size - 1, mark(i));
        post(0);
        awaitByte(size, i);
    }

    /**
     * Wait until the last byte of the landing area shows exchange {@code i}'s mark, polling the CQ in
     * between: it reaps this side's WRITE completions and, on a polling-mode device, is what receives.
     */
    private void awaitByte(final int size, final int i) throws PerfException
    {
        final byte want = mark(i);
        final long offset = size - 1;
        long since = 0;
        int empty = 0;
        while ((byte)BYTE.getVolatile(peer.buffer(), offset) != want)
        {
            final int n = peer.pollOnce();
            if (n > 0)
            {
                spin.reset();
                reap(n);
                continue;
            }
            spin.idle();
            if ((++empty & 0xFFF) == 0)
            {
                final long now = System.nanoTime();
                if (since == 0)
                {
                    since = now;
                }
                else if (now - since > TimeUnit.SECONDS.toNanos(20))
                {
                    throw new PerfException("write_lat: exchange " + i + " never arrived (20 s)");
                }
            }
        }
    }

    /**
     * write_lat's mark for exchange i: rdma4j's own never 0, which is what the buffer starts as; perftest's the
     * count of writes so far in a byte, which a perftest peer writes and waits for (0 at the 256th is no
     * ambiguity: the byte then holds 255).
     */
    private byte mark(final int i)
    {
        return cfg.perftest() ? (byte)(i + 1) : (byte)(i % 255 + 1);
    }

    /**
     * A SEND or WRITE ping-pong as perftest runs it against a perftest peer, and the side that goes first is
     * perftest's (the client for SEND, the server for WRITE). The first side records each post-to-answer round
     * trip, the other each interval between its own posts (one round trip too, as perftest times it); both record
     * half of it. The peer runs {@code total} exchanges too and knows nothing of a warm-up: the first
     * {@code warmup} are merely left out of the histogram.
     *
     * @param size   the message size.
     * @param total  exchanges.
     * @param warmup how many of the first exchanges go unrecorded.
     * @param first  true on the side that sends first.
     * @param into   the histogram (ns).
     * @throws PerfException if a completion fails or the peer stops.
     * @throws InterruptedException if interrupted while sleeping on events.
     */
    void perftestPingPong(final int size, final int total, final int warmup, final boolean first,
        final Histogram into)
        throws PerfException, InterruptedException
    {
        prepare(size, 0);
        final boolean write = cfg.test() == PerfTest.WRITE_LAT;
        long previous = 0;
        for (int i = 0; i < total; i++)
        {
            if (!first)
            {
                awaitArrival(write, size, i);
            }
            final long posted = System.nanoTime();
            // the interval that ends at post i is exchange i - 1's round trip
            if (!first && i > warmup)
            {
                into.recordValue((posted - previous) / 2);
            }
            previous = posted;
            awaitSendRoom(cfg.txDepth());
            if (write)
            {
                peer.buffer().set(ValueLayout.JAVA_BYTE, peer.sourceOffset() + size - 1, mark(i));
            }
            post(0);
            if (first)
            {
                awaitArrival(write, size, i);
                final long rtt = System.nanoTime() - posted;
                if (i >= warmup)
                {
                    into.recordValue(rtt / 2);
                }
            }
        }
        drainSends();
    }

    private void awaitArrival(final boolean write, final int size, final int i)
        throws PerfException, InterruptedException
    {
        if (write)
        {
            awaitByte(size, i);
            return;
        }
        final long want = recvsDone + 1;
        while (recvsDone < want)
        {
            reap(peer.await());
        }
    }

    /**
     * The receiving side of send_bw against a perftest peer: {@code count} messages, each receive reposted, and
     * no credits back (perftest's sender relies on the receive queue and, on RC, RNR retries).
     *
     * @param count messages.
     * @return nanoseconds from the first completion to the last.
     * @throws PerfException if a completion fails or the sender stops.
     * @throws InterruptedException if interrupted while sleeping on events.
     */
    long receiveStream(final int count) throws PerfException, InterruptedException
    {
        final long base = recvsDone;
        long start = 0;
        while (recvsDone - base < count)
        {
            final int n = peer.await();
            if (start == 0)
            {
                start = System.nanoTime();
            }
            reap(n);
        }
        return System.nanoTime() - start;
    }

    private void requestOnce() throws PerfException, InterruptedException
    {
        post(0);
        final long want = sendsPosted;
        while (sendsDone < want)
        {
            reap(peer.await());
        }
    }

    private void drainSends() throws PerfException, InterruptedException
    {
        while (sendsDone < sendsPosted)
        {
            reap(peer.await());
        }
    }

    /**
     * @param size the message size.
     * @return SEND messages the client may have beyond the server's last credit: the receive depth
     * on RC, whose retransmissions make up for a full socket buffer; on UC and UD, where a dropped
     * packet is a lost message and a stalled count, also no more than {@link #UNRELIABLE_WINDOW_BYTES}
     * of packets, which stays within the receiving device's socket buffer.
     */
    long creditWindow(final int size)
    {
        if (cfg.transport() == QpType.RC)
        {
            return cfg.rxDepth();
        }
        final long packets = Math.max(1, (size + PACKET_PAYLOAD - 1) / PACKET_PAYLOAD);
        return Math.max(1, Math.min(cfg.rxDepth(), UNRELIABLE_WINDOW_BYTES / (packets * PACKET_COST)));
    }

    /**
     * The client of a bandwidth test: {@code count} messages spread over the QPs, at most -t in
     * flight (READs also at most the QPs' read limit), SENDs also within the server's credit.
     *
     * @param size  the message size.
     * @param count messages.
     * @return nanoseconds from the first post to the last completion (and, for SEND, the last credit).
     * @throws PerfException if a completion fails or the peer stops.
     * @throws InterruptedException if interrupted while sleeping on events.
     */
    long bandwidthClient(final int size, final int count) throws PerfException, InterruptedException
    {
        final PerfTest test = cfg.test();
        final boolean credited = test.usesReceives() && !cfg.perftest();
        long inFlight = cfg.txDepth();
        if (test.opcode() == WrOpcode.RDMA_READ)
        {
            inFlight = Math.min(inFlight, (long)RdmaPeer.MAX_RD_ATOMIC * peer.qpCount());
        }
        final long window = creditWindow(size);
        final long base = sendsPosted;
        lastImm = 0;
        final long start = System.nanoTime();
        int next = 0;
        while (sendsDone - base < count || (credited && lastImm < count))
        {
            while (sendsPosted - base < count && sendsPosted - sendsDone < inFlight &&
                (!credited || sendsPosted - base - lastImm < window))
            {
                // as many as -l (one without it), the count, the depth and the credit allow, in one chain to one QP
                long room = Math.min(count - (sendsPosted - base), inFlight - (sendsPosted - sendsDone));
                if (credited)
                {
                    room = Math.min(room, window - (sendsPosted - base - lastImm));
                }
                postList(size, next, (int)Math.min(list.length, room));
                next = next + 1 == peer.qpCount() ? 0 : next + 1;
            }
            reap(peer.await());
        }
        return System.nanoTime() - start;
    }

    /**
     * The server of a bandwidth test. For SEND: take {@code count} messages, reposting each receive,
     * and return a credit (SEND with immediate: the count so far) every quarter of the receive depth
     * and at the end. The other tests need nothing from it.
     *
     * @param size  the message size.
     * @param count messages.
     * @throws PerfException if a completion fails or the client stops.
     * @throws InterruptedException if interrupted while sleeping on events.
     */
    void bandwidthServer(final int size, final int count) throws PerfException, InterruptedException
    {
        if (!cfg.test().usesReceives())
        {
            return;
        }
        final int batch = (int)Math.max(1, creditWindow(size) / 4);
        credit.wrId(RdmaPeer.SEND_WRID).opcode(WrOpcode.SEND_WITH_IMM).sendFlags(SendFlags.SIGNALED)
            .sge(peer.mr(), peer.sourceOffset(), Integer.BYTES);
        aim(credit, 0);
        final long base = recvsDone;
        long credited = 0;
        while (credited < count)
        {
            reap(peer.await());
            final long received = recvsDone - base;
            if (received - credited >= batch || received == count)
            {
                awaitSendRoom(cfg.txDepth());
                credit.immData((int)received);
                peer.qp(0).postSend(credit);
                sendsPosted++;
                credited = received;
            }
        }
        drainSends();
    }
}
