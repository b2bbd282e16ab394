package io.rdma4j.rmcast;

import io.rdma4j.cm.CmId;
import io.rdma4j.rmcast.protocol.FrameHeader;
import io.rdma4j.rmcast.protocol.RepairGrant;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.EnumSet;

/**
 * A subscription's view of one publisher session: the next sequence to deliver, a repair ring laid out as the
 * publisher's window (slot {@code s % windowSlots}), so that a READ of a run of window slots lands where the
 * multicast copies would have gone, the reassembly of fragmented messages, and the repair connection.
 * <p>
 * A fragment that arrives in order is delivered from its receive slot; one that arrives early is copied into
 * the ring. A gap older than the repair delay is read from the window, followed by a READ of the publisher's
 * head word: a slot whose fragment the head shows overwritten before the READ ended is lost, and reported.
 */
final class SessionImage
{
    enum State
    {
        CONNECTING, ACTIVE, CLOSED
    }

    static final int KIND_REPAIR_DATA = 1;
    static final int KIND_REPAIR_HEAD = 2;
    static final int KIND_STATUS = 3;

    /**
     * The local control region: the status entry that RDMA WRITE sends, then one head word per repair in flight
     * for its READ to fill: a later repair's head, larger, would declare an earlier one's slots lost for nothing.
     */
    private static final int STATUS_OFFSET = 0;
    private static final int STATUS_LENGTH = 16;
    private static final int HEAD_OFFSET = 16;
    /** Repairs a session keeps in flight: RC completes them in order, so they are a FIFO. */
    static final int MAX_REPAIRS_IN_FLIGHT = 4;
    private static final int CONTROL_LENGTH = 64;
    /** What {@code present} holds for a slot whose fragment is known lost: below -1, the empty mark. */
    private static long lostMark(final long sequence)
    {
        return -2 - sequence;
    }

    final int sessionId;
    final int slotIndex;
    final int generation;
    final InetSocketAddress repairAddress;
    final CmId rcId;
    State state = State.CONNECTING;
    long lastActivityNs;

    private final MulticastConfig config;
    private final Counters counters;
    private final SubscriptionListener listener;
    private final Arena arena = Arena.ofShared();
    private final SendWr repairWr = new SendWr();
    private final SendWr headWr = new SendWr();
    private final SendWr statusWr = new SendWr();

    private QueuePair qp;
    private MemorySegment ring;
    private MemoryRegion ringMr;
    private MemorySegment control;
    private MemoryRegion controlMr;
    private MemorySegment assembly;
    private long[] present;
    private int windowSlots;
    private int slotMask;
    private int slotLength;
    private int maxPayload;
    private long remoteWindow;
    private int windowRkey;

    private long expected;
    private long highestKnown;
    private long gapSinceNs = -1;
    private final long[] repairFrom = new long[MAX_REPAIRS_IN_FLIGHT];
    private final long[] repairTo = new long[MAX_REPAIRS_IN_FLIGHT];
    private int repairOldest;
    private int repairsInFlight;
    private long lossRunStart = -1;
    private boolean statusInFlight;
    private long lastStatusNs;
    private long lastStatusPosition;
    private long liveness;
    private boolean assembling;
    private int assemblyLength;
    /** Where delivery resumes in the ring slot of {@code expected} when a poll's budget ended within it; 0 if not. */
    private long resumeOffset;
    /** Where an earlier image of this session ended (delivered or reported lost below it); -1 if none. */
    private final long resumeFrom;
    private boolean activated;

    SessionImage(
        final int sessionId, final int slotIndex, final int generation, final InetSocketAddress repairAddress,
        final CmId rcId, final MulticastConfig config, final Counters counters, final SubscriptionListener listener,
        final long nowNs, final long announcedHead, final long resumeFrom)
    {
        this.resumeFrom = resumeFrom;
        this.sessionId = sessionId;
        this.slotIndex = slotIndex;
        this.generation = generation;
        this.repairAddress = repairAddress;
        this.rcId = rcId;
        this.config = config;
        this.counters = counters;
        this.listener = listener;
        lastActivityNs = nowNs;
        highestKnown = announcedHead;
    }

    long wrId(final int kind)
    {
        return ((long)generation << 32) | ((long)slotIndex << 8) | kind;
    }

    /**
     * @return whether this image continues an earlier one of its session: it asks for a replay, so that it
     *         resumes where that one ended wherever the window still holds it, not at the live head.
     */
    boolean resumes()
    {
        return resumeFrom >= 0;
    }

    /**
     * The repair connection is up: allocate the ring as the grant lays out the window, start, and write the
     * first status at once (the publisher counts a member silent from the connection on).
     */
    void activate(final RepairGrant grant, final ProtectionDomain pd)
    {
        windowSlots = grant.windowSlots();
        slotMask = windowSlots - 1;
        slotLength = grant.slotLength();
        maxPayload = grant.maxPayload();
        remoteWindow = grant.windowAddress();
        windowRkey = grant.windowRkey();
        RdmaException.check(Integer.bitCount(windowSlots) == 1, io.rdma4j.verbs.Errno.EPROTO,
            "the publisher's window of " + windowSlots + " slots is no power of two");
        ring = arena.allocate((long)windowSlots * slotLength, 4096);
        ringMr = pd.regMr(ring, EnumSet.of(AccessFlag.LOCAL_WRITE));
        control = arena.allocate(CONTROL_LENGTH, 64);
        controlMr = pd.regMr(control, EnumSet.of(AccessFlag.LOCAL_WRITE));
        assembly = arena.allocate(Math.max(1, config.maxMessageLength()), 64);
        present = new long[windowSlots];
        Arrays.fill(present, -1);
        repairWr.opcode(WrOpcode.RDMA_READ).wrId(wrId(KIND_REPAIR_DATA)).sendFlags(0);
        headWr.opcode(WrOpcode.RDMA_READ).wrId(wrId(KIND_REPAIR_HEAD)).sendFlags(SendFlags.SIGNALED)
            .rdma(grant.headAddress(), grant.headRkey());
        statusWr.opcode(WrOpcode.RDMA_WRITE).wrId(wrId(KIND_STATUS)).sendFlags(SendFlags.SIGNALED)
            .sge(controlMr, STATUS_OFFSET, STATUS_LENGTH).rdma(grant.statusAddress(), grant.statusRkey());
        final long start = grant.startSequence();
        // a session seen before resumes where its last image ended: what went by between is reported lost, what
        // a replay would bring again is not delivered twice
        expected = resumeFrom >= 0 ? resumeFrom : start;
        highestKnown = Math.max(highestKnown, Math.max(expected, start));
        lastStatusPosition = Long.MIN_VALUE / 2;
        state = State.ACTIVE;
        activated = true;
        // the clock after the allocation, which can take seconds: a stale one would time the session out
        final long nowNs = System.nanoTime();
        lastActivityNs = nowNs;
        counters.increment(RmcastCounter.IMAGES_AVAILABLE);
        listener.onImageAvailable(sessionId, expected);
        if (expected < start)
        {
            // what the window no longer held when this image of a returning session began
            reportLoss(expected, start);
            expected = start;
        }
        writeStatus(nowNs);
    }

    /** @return where delivery stood when the image closed, -1 if it never began. */
    long endPosition()
    {
        return activated ? expected : -1;
    }

    void repairQp(final QueuePair value)
    {
        qp = value;
    }

    QueuePair repairQp()
    {
        return qp;
    }

    long position()
    {
        return expected;
    }

    long highestKnown()
    {
        return highestKnown;
    }

    void onHeartbeat(final long head, final long nowNs)
    {
        lastActivityNs = nowNs;
        if (head > highestKnown)
        {
            highestKnown = head;
        }
    }

    /**
     * A DATA frame of this session from the group.
     *
     * @return fragments delivered (0 or 1).
     */
    int onData(final MemorySegment buffer, final long frame, final int datagramLength, final long nowNs,
        final MessageHandler handler, final Subscription.Budget budget)
    {
        lastActivityNs = nowNs;
        final long sequence = FrameHeader.sequence(buffer, frame);
        if (datagramLength > slotLength || !wellFormed(buffer, frame, datagramLength, sequence))
        {
            counters.increment(RmcastCounter.MALFORMED_FRAMES);
            return 0;
        }
        counters.increment(RmcastCounter.FRAGMENTS_RECEIVED);
        if (sequence < expected)
        {
            counters.increment(RmcastCounter.DUPLICATES);
            return 0;
        }
        if (sequence + 1 > highestKnown)
        {
            highestKnown = sequence + 1;
        }
        if (sequence >= expected + windowSlots)
        {
            // the ring cannot hold it; the window may, and a repair will tell
            counters.increment(RmcastCounter.BEYOND_WINDOW);
            noteGap(nowNs);
            return 0;
        }
        final int index = (int)sequence & slotMask;
        if (present[index] == sequence)
        {
            counters.increment(RmcastCounter.DUPLICATES);
            return 0;
        }
        if (sequence == expected && budget.remaining > 0 && !inRepair(sequence))
        {
            // (a READ in flight for it would race the ring copy below, should the budget end within it)
            final long rest = deliverSlot(buffer, frame, 0, sequence, handler, budget);
            if (rest < 0)
            {
                expected++;
                return 1;
            }
            // the budget ended within the datagram: the rest waits in the ring for the next poll
            MemorySegment.copy(buffer, frame, ring, (long)index * slotLength, datagramLength);
            present[index] = sequence;
            resumeOffset = rest;
            return 1;
        }
        if (inRepair(sequence))
        {
            // the READ in flight writes this slot; a copy now would race it
            counters.increment(RmcastCounter.DUPLICATES);
            return 0;
        }
        MemorySegment.copy(buffer, frame, ring, (long)index * slotLength, datagramLength);
        present[index] = sequence;
        if (sequence > expected)
        {
            noteGap(nowNs);
        }
        return 0;
    }

    /**
     * Every frame of a datagram (or a repaired slot) lies within it, is DATA of this session and slot, and only a
     * frame of a whole message shares its slot: what delivery then walks without a check.
     */
    private boolean wellFormed(final MemorySegment buffer, final long frame, final int limit, final long sequence)
    {
        long at = 0;
        while (true)
        {
            if (at + FrameHeader.LENGTH > limit)
            {
                return false;
            }
            final long f = frame + at;
            final int length = FrameHeader.payloadLength(buffer, f);
            final byte flags = FrameHeader.flags(buffer, f);
            if (length < 0 || length > maxPayload || at + FrameHeader.LENGTH + length > limit)
            {
                return false;
            }
            final boolean more = (flags & FrameHeader.MORE_FLAG) != 0;
            if ((at > 0 || more) && (FrameHeader.type(buffer, f) != FrameHeader.TYPE_DATA ||
                FrameHeader.sessionId(buffer, f) != sessionId || FrameHeader.sequence(buffer, f) != sequence ||
                (flags & FrameHeader.UNFRAGMENTED) != FrameHeader.UNFRAGMENTED))
            {
                return false;
            }
            if (!more)
            {
                return true;
            }
            at = FrameHeader.next(at, length);
        }
    }

    private void noteGap(final long nowNs)
    {
        if (gapSinceNs < 0)
        {
            gapSinceNs = nowNs;
            counters.increment(RmcastCounter.GAPS);
        }
    }

    /**
     * Deliver what the ring holds in order, repair a gap, report the position.
     *
     * @return the work done.
     */
    int duty(final long nowNs, final MessageHandler handler, final Subscription.Budget budget)
    {
        if (state != State.ACTIVE)
        {
            return 0;
        }
        int work = 0;
        while (budget.remaining > 0)
        {
            final int index = (int)expected & slotMask;
            final long held = present[index];
            if (held == expected)
            {
                flushLossRun();
                final long rest = deliverSlot(ring, (long)index * slotLength, resumeOffset, expected, handler, budget);
                if (rest >= 0)
                {
                    resumeOffset = rest;
                    work++;
                    break;
                }
                resumeOffset = 0;
            }
            else if (held == lostMark(expected))
            {
                // adjacent lost fragments make one event, reported in order among the messages
                if (lossRunStart < 0)
                {
                    lossRunStart = expected;
                }
            }
            else
            {
                break;
            }
            expected++;
            work++;
        }
        flushLossRun();
        if (expected >= highestKnown)
        {
            gapSinceNs = -1;
        }
        else
        {
            noteGap(nowNs);
            if (nowNs - gapSinceNs >= config.repairDelayNs())
            {
                work += issueRepairs();
            }
        }
        if (!statusInFlight && (nowNs - lastStatusNs >= config.statusIntervalNs() ||
            expected - lastStatusPosition >= windowSlots / 8))
        {
            writeStatus(nowNs);
            work++;
        }
        return work;
    }

    private void flushLossRun()
    {
        if (lossRunStart >= 0)
        {
            reportLoss(lossRunStart, expected);
            lossRunStart = -1;
        }
    }

    private boolean inRepair(final long sequence)
    {
        for (int i = 0, r = repairOldest; i < repairsInFlight; i++, r = (r + 1) % MAX_REPAIRS_IN_FLIGHT)
        {
            if (sequence >= repairFrom[r] && sequence < repairTo[r])
            {
                return true;
            }
        }
        return false;
    }

    private boolean missing(final long sequence)
    {
        final long held = present[(int)sequence & slotMask];
        return held != sequence && held != lostMark(sequence);
    }

    /** READ the missing runs between the delivery position and the newest fragment known sent, a run a READ. */
    private int issueRepairs()
    {
        int issued = 0;
        long from = repairsInFlight == 0 ? expected :
            Math.max(expected, repairTo[(repairOldest + repairsInFlight - 1) % MAX_REPAIRS_IN_FLIGHT]);
        while (repairsInFlight < MAX_REPAIRS_IN_FLIGHT)
        {
            while (from < highestKnown && !missing(from))
            {
                from++;
            }
            if (from >= highestKnown)
            {
                break;
            }
            final int index = (int)from & slotMask;
            final long limit = Math.min(Math.min(highestKnown, from + config.maxRepairFragments()),
                from - index + windowSlots);
            long to = from + 1;
            while (to < limit && missing(to))
            {
                to++;
            }
            final int r = (repairOldest + repairsInFlight) % MAX_REPAIRS_IN_FLIGHT;
            final long offset = (long)index * slotLength;
            repairWr.sge(ringMr, offset, Math.toIntExact((to - from) * slotLength))
                .rdma(remoteWindow + offset, windowRkey);
            headWr.sge(controlMr, HEAD_OFFSET + (long)r * Long.BYTES, Long.BYTES);
            qp.postSend(repairWr);
            qp.postSend(headWr);
            repairFrom[r] = from;
            repairTo[r] = to;
            repairsInFlight++;
            issued++;
            counters.increment(RmcastCounter.REPAIR_READS);
            from = to;
        }
        return issued;
    }

    /**
     * The oldest repair's two READs completed: keep the slots its head shows whole, mark the ones it shows
     * overwritten as lost (delivery reports them in order).
     */
    void onRepairCompleted(final long nowNs)
    {
        final int r = repairOldest;
        repairOldest = (repairOldest + 1) % MAX_REPAIRS_IN_FLIGHT;
        repairsInFlight--;
        final long head = control.get(ValueLayout.JAVA_LONG, HEAD_OFFSET + (long)r * Long.BYTES);
        for (long s = Math.max(repairFrom[r], expected); s < repairTo[r]; s++)
        {
            final int index = (int)s & slotMask;
            if (present[index] == s)
            {
                continue;
            }
            final long slot = (long)index * slotLength;
            if (head > s + windowSlots)
            {
                present[index] = lostMark(s);
            }
            else if (FrameHeader.sequence(ring, slot) == s && FrameHeader.sessionId(ring, slot) == sessionId)
            {
                if (wellFormed(ring, slot, slotLength, s))
                {
                    present[index] = s;
                    counters.increment(RmcastCounter.FRAGMENTS_REPAIRED);
                }
                else
                {
                    // the publisher's own slot makes no sense: reading it again would not either
                    present[index] = lostMark(s);
                    counters.increment(RmcastCounter.MALFORMED_FRAMES);
                }
            }
        }
        // the rest of a long gap goes at once, not after another delay
        gapSinceNs = nowNs - config.repairDelayNs();
    }

    private void reportLoss(final long from, final long to)
    {
        counters.increment(RmcastCounter.LOSS_EVENTS);
        counters.add(RmcastCounter.FRAGMENTS_LOST, to - from);
        assembling = false;
        listener.onUnrecoverableLoss(sessionId, from, to);
    }

    void onStatusCompleted()
    {
        statusInFlight = false;
    }

    private void writeStatus(final long nowNs)
    {
        control.set(ValueLayout.JAVA_LONG, STATUS_OFFSET, expected);
        control.set(ValueLayout.JAVA_LONG, STATUS_OFFSET + Long.BYTES, ++liveness);
        qp.postSend(statusWr);
        statusInFlight = true;
        lastStatusNs = nowNs;
        lastStatusPosition = expected;
        counters.increment(RmcastCounter.STATUS_WRITES);
    }

    /**
     * Deliver a slot's frames from an offset in it while the budget lasts.
     *
     * @return -1 when the slot's last frame went, else the offset of the frame to resume at.
     */
    private long deliverSlot(final MemorySegment buffer, final long slot, final long from, final long sequence,
        final MessageHandler handler, final Subscription.Budget budget)
    {
        long at = from;
        while (budget.remaining > 0)
        {
            final long frame = slot + at;
            final boolean more = (FrameHeader.flags(buffer, frame) & FrameHeader.MORE_FLAG) != 0;
            final int length = FrameHeader.payloadLength(buffer, frame);
            deliver(buffer, frame, sequence, handler, budget);
            if (!more)
            {
                return -1;
            }
            at = FrameHeader.next(at, length);
        }
        return at;
    }

    private void deliver(final MemorySegment buffer, final long frame, final long sequence,
        final MessageHandler handler, final Subscription.Budget budget)
    {
        budget.remaining--;
        final byte flags = FrameHeader.flags(buffer, frame);
        final int length = FrameHeader.payloadLength(buffer, frame);
        final long payload = frame + FrameHeader.LENGTH;
        if ((flags & FrameHeader.UNFRAGMENTED) == FrameHeader.UNFRAGMENTED)
        {
            assembling = false;
            counters.increment(RmcastCounter.MESSAGES_DELIVERED);
            counters.add(RmcastCounter.BYTES_DELIVERED, length);
            handler.onMessage(buffer, payload, length, sessionId, sequence + 1);
            return;
        }
        if ((flags & FrameHeader.BEGIN_FLAG) != 0)
        {
            assembling = true;
            assemblyLength = 0;
        }
        else if (!assembling)
        {
            // the rest of a message joined late, or whose head was reported lost
            counters.increment(RmcastCounter.FRAGMENTS_SKIPPED);
            return;
        }
        if (assemblyLength + length > assembly.byteSize())
        {
            assembling = false;
            counters.increment(RmcastCounter.MALFORMED_FRAMES);
            return;
        }
        MemorySegment.copy(buffer, payload, assembly, assemblyLength, length);
        assemblyLength += length;
        if ((flags & FrameHeader.END_FLAG) != 0)
        {
            assembling = false;
            counters.increment(RmcastCounter.MESSAGES_DELIVERED);
            counters.add(RmcastCounter.BYTES_DELIVERED, assemblyLength);
            handler.onMessage(assembly, 0, assemblyLength, sessionId, sequence + 1);
        }
    }

    /**
     * The session is over: what was known sent but not delivered is reported lost, then the connection and
     * memory go.
     */
    void close(final boolean reportUnavailable)
    {
        if (state == State.CLOSED)
        {
            return;
        }
        final boolean wasActive = state == State.ACTIVE;
        state = State.CLOSED;
        if (wasActive && highestKnown > expected)
        {
            reportLoss(expected, highestKnown);
            expected = highestKnown;
        }
        try
        {
            try
            {
                if (qp != null)
                {
                    qp.close();
                }
            }
            finally
            {
                if (ringMr != null)
                {
                    ringMr.close();
                }
                if (controlMr != null)
                {
                    controlMr.close();
                }
                rcId.close();
                arena.close();
            }
        }
        finally
        {
            if (wasActive && reportUnavailable)
            {
                counters.increment(RmcastCounter.IMAGES_UNAVAILABLE);
                listener.onImageUnavailable(sessionId, expected);
            }
        }
    }
}
