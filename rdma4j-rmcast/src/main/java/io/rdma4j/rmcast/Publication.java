package io.rdma4j.rmcast;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.JoinFlags;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.cm.Resources;
import io.rdma4j.cm.UdParam;
import io.rdma4j.rmcast.protocol.FrameHeader;
import io.rdma4j.rmcast.protocol.HeartbeatBody;
import io.rdma4j.rmcast.protocol.RepairGrant;
import io.rdma4j.rmcast.protocol.RepairRequest;
import io.rdma4j.stat.StatFilePublisher;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One publisher session on a multicast group. {@link #offer} and {@link #tryClaim} write each fragment into
 * its slot of the retransmit window (registered for REMOTE_READ) and send it to the group from there;
 * subscribers repair from the window by RDMA READ and write their positions into the status array (registered
 * for REMOTE_WRITE), which flow control reads. {@link #doWork()} accepts members, sends heartbeats and times
 * out silent members; offer calls it now and then, and an idle publisher should call it from its loop.
 * <p>
 * Not thread-safe: one thread offers and does the work, as with Aeron's exclusive publication.
 */
public final class Publication implements AutoCloseable
{
    /** The group has fewer members than {@link MulticastConfig#minGroupSize()}: nothing was sent. */
    public static final long NOT_CONNECTED = -1;
    /** Flow control or the send queue holds the message back: try again. */
    public static final long BACK_PRESSURED = -2;
    /** The publication is closed. */
    public static final long CLOSED = -4;

    /** Slots start on a cache line, so a READ of a run of them and the copies in and out stay aligned. */
    static final int SLOT_ALIGNMENT = 64;
    /** The head word's offset in the control region. */
    static final int HEAD_OFFSET = 0;
    private static final int CONTROL_LENGTH = 64;
    /** Work between calls of the duty cycle from offer, so a busy publisher still heartbeats and accepts. */
    private static final int OFFERS_PER_DUTY = 128;
    /** The send completions a signaled send stands for: one in this many is signaled. */
    private static final int SIGNAL_EVERY = 16;

    private final MulticastConfig config;
    private final PublicationListener listener;
    private final Resources resources = new Resources();
    private final EventChannel channel;
    private final CmId udId;
    private final CmId listenId;
    private final Context context;
    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue rcCq;
    private final QueuePair qp;
    private final AddressHandle groupAh;
    private final int groupQpn;
    private final int groupQkey;
    private final int sessionId;
    private final int windowSlots;
    private final int slotMask;
    private final int slotLength;
    private final int maxPayload;
    /** The largest datagram: a slot's frames together, headers included. */
    private final int maxDatagram;
    private final int maxMessageLength;
    private final MemorySegment window;
    private final MemoryRegion windowMr;
    private final MemorySegment control;
    private final MemoryRegion controlMr;
    private final MemorySegment status;
    private final MemoryRegion statusMr;
    private final MemorySegment heartbeats;
    private final int heartbeatLength;
    private final InetSocketAddress listenAddress;
    private final Member[] members;
    private final SendWr sendWr = new SendWr();
    private final WorkCompletion[] wcs = WorkCompletion.array(64);
    private final Counters counters = new Counters();
    private final boolean dropsSlowMembers;

    private long nextSequence;
    private long postedSends;
    private long completedSends;
    private long positionLimit = Long.MAX_VALUE;
    private boolean groupReached;
    private boolean claimed;
    /** The claimed frame's offset in the open slot. */
    private int claimFrame;
    /**
     * The slot being packed with small messages and not posted yet, -1 when none: its sequence is
     * {@code nextSequence - 1}, it was admitted (flow control, send room) when opened, and the next flush posts it.
     */
    private long openSlot = -1;
    /** Bytes of frames in the open slot: the datagram's length. */
    private int openLength;
    /** The offset of the open slot's last frame, whose MORE flag a frame appended after it sets. */
    private int openLastFrame;
    private int offersSinceDuty;
    private int offersSinceFlush;
    private long lastHeartbeatNs = Long.MIN_VALUE / 2;
    /** When {@link #checkMembers} last looked; a look after a long gap gives every member its time again. */
    private long lastMemberCheckNs = Long.MIN_VALUE / 2;
    private int heartbeatToggle;
    private boolean closed;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private Publication(final MulticastConfig config, final InetAddress localAddress, final InetSocketAddress group,
        final PublicationListener listener) throws InterruptedException
    {
        this.config = config.conclude();
        this.listener = listener == null ? PublicationListener.NONE : listener;
        boolean opened = false;
        try
        {
            channel = resources.add(RdmaCm.createEventChannel());
            udId = resources.add(channel.createId(null, PortSpace.UDP));
            udId.bindAddr(new InetSocketAddress(localAddress, 0));
            context = udId.verbs();
            pd = resources.add(context.allocPd());
            final int portMtu = context.queryPort(1).activeMtu().bytes();
            final int mtu = config.mtu() == 0 ? portMtu : Math.min(config.mtu(), portMtu);
            maxPayload = mtu - FrameHeader.LENGTH;
            maxDatagram = mtu;
            windowSlots = config.windowSlots();
            slotMask = windowSlots - 1;
            slotLength = align(FrameHeader.LENGTH + maxPayload, SLOT_ALIGNMENT);
            final long largest = (long)windowSlots * maxPayload;
            RdmaException.check(config.maxMessageLength() <= largest, Errno.EINVAL, "maxMessageLength " +
                config.maxMessageLength() + " exceeds what the window holds (" + windowSlots + " slots of " +
                maxPayload + " bytes = " + largest + "): a message must fit in the window to be repairable");
            maxMessageLength = config.maxMessageLength();
            dropsSlowMembers = config.flowControl() == FlowControl.MAX && config.dropSlowMembers();

            sendCq = resources.add(context.createCq(config.sendQueueDepth() + 1, null, 0));
            rcCq = resources.add(context.createCq(16, null, 0));
            qp = udId.createQp(pd, QpInitAttr.of(QpType.UD, sendCq, QpCap.of(config.sendQueueDepth() + 1, 1)));

            final Arena arena = resources.add(Arena.ofShared());
            // the two heartbeat frames live past the window's slots, in its region: every send has one lkey
            final long windowBytes = (long)windowSlots * slotLength;
            window = arena.allocate(windowBytes + 2L * SLOT_ALIGNMENT, 4096);
            windowMr = resources.add(pd.regMr(window, EnumSet.of(AccessFlag.REMOTE_READ)));
            heartbeats = window.asSlice(windowBytes, 2L * SLOT_ALIGNMENT);
            control = arena.allocate(CONTROL_LENGTH, SLOT_ALIGNMENT);
            controlMr = resources.add(pd.regMr(control, EnumSet.of(AccessFlag.REMOTE_READ)));
            status = arena.allocate((long)config.maxMembers() * Member.STATUS_ENTRY_LENGTH, 4096);
            statusMr = resources.add(pd.regMr(status, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE)));
            heartbeatLength = FrameHeader.LENGTH + HeartbeatBody.LENGTH;
            members = new Member[config.maxMembers()];
            sessionId = newSessionId();

            listenId = resources.add(channel.createId(null, PortSpace.TCP));
            listenId.bindAddr(new InetSocketAddress(localAddress, config.repairPort()));
            listenId.listen(config.maxMembers());
            listenAddress = listenId.localAddress();
            HeartbeatBody.write(heartbeats, FrameHeader.LENGTH, listenAddress, windowSlots);
            HeartbeatBody.write(heartbeats, SLOT_ALIGNMENT + FrameHeader.LENGTH, listenAddress, windowSlots);

            udId.joinMulticast(group, JoinFlags.SENDONLY_FULLMEMBER, null);
            final UdParam ud;
            try (CmEvent joined = channel.expect(CmEventType.MULTICAST_JOIN, config.cmTimeoutMs(),
                TimeUnit.MILLISECONDS))
            {
                ud = joined.udParam();
            }
            groupAh = resources.add(pd.createAh(ud.ahAttr()));
            groupQpn = ud.qpNum();
            groupQkey = ud.qkey();
            sendWr.opcode(WrOpcode.SEND).ud(groupAh, groupQpn, groupQkey);
            final StatFilePublisher.Registration stat = RmcastStat.open(config, String.format("rmcast-pub-%08x",
                sessionId), group.getAddress().getHostAddress(), "publication", counters, RmcastCounter.FRAGMENTS_SENT,
                RmcastCounter.REPAIR_REQUESTS_REFUSED, List.of(
                    new RmcastStat.Gauge(RmcastStat.PUBLICATION_POSITION_ID, "position", this::position),
                    new RmcastStat.Gauge(RmcastStat.PUBLICATION_MEMBERS_ID, "members", this::memberCount)),
                String.format("publication session 0x%08x group %s repair %s window %d x %d B flow %s%n", sessionId,
                    group.getAddress().getHostAddress(), listenAddress.getAddress().getHostAddress() + ":" +
                    listenAddress.getPort(), windowSlots, maxPayload, config.flowControl()));
            if (stat != null)
            {
                resources.add(stat);
            }
            opened = true;
        }
        finally
        {
            if (!opened)
            {
                resources.close();
            }
        }
    }

    /**
     * Open a publication: a new session on the group, with its repair listener on the local address.
     *
     * @param config       the settings; concluded here.
     * @param localAddress the address of this process's device.
     * @param group        the multicast group (the port is ignored).
     * @return the publication.
     * @throws RdmaException      EINVAL for settings out of range; what the connection manager raises.
     * @throws InterruptedException if interrupted while joining the group.
     */
    public static Publication open(final MulticastConfig config, final InetAddress localAddress,
        final InetSocketAddress group) throws InterruptedException
    {
        return new Publication(config, localAddress, group, null);
    }

    /**
     * Open a publication whose members' fate a listener is told of.
     *
     * @param config       the settings; concluded here.
     * @param localAddress the address of this process's device.
     * @param group        the multicast group (the port is ignored).
     * @param listener     told of members dropped; null for none.
     * @return the publication.
     * @throws RdmaException      EINVAL for settings out of range; what the connection manager raises.
     * @throws InterruptedException if interrupted while joining the group.
     */
    public static Publication open(final MulticastConfig config, final InetAddress localAddress,
        final InetSocketAddress group, final PublicationListener listener) throws InterruptedException
    {
        return new Publication(config, localAddress, group, listener);
    }

    private static int newSessionId()
    {
        // a restarted publisher must never reuse a session: subscribers would take its window for the old one
        final SecureRandom random = new SecureRandom();
        int id;
        do
        {
            id = random.nextInt();
        }
        while (id == 0);
        return id;
    }

    static int align(final int value, final int alignment)
    {
        return (value + alignment - 1) & -alignment;
    }

    /** @return this publisher's session, new on every open. */
    public int sessionId()
    {
        return sessionId;
    }

    /**
     * @return the position after the last message offered, in window slots (datagrams): the value offer returned
     *         for it. Small messages packed into one datagram share it.
     */
    public long position()
    {
        return nextSequence;
    }

    /** @return the head the group has been sent: the open slot, if any, is not yet. */
    private long sentHead()
    {
        return openSlot >= 0 ? nextSequence - 1 : nextSequence;
    }

    /** @return the largest payload of one fragment (the frame's MTU less the header): tryClaim's limit. */
    public int maxPayloadLength()
    {
        return maxPayload;
    }

    /** @return the largest message offer takes. */
    public int maxMessageLength()
    {
        return maxMessageLength;
    }

    /** @return where subscribers connect for repair. */
    public InetSocketAddress repairAddress()
    {
        return listenAddress;
    }

    /** @return members whose repair connection is established and that count in flow control. */
    public int memberCount()
    {
        int count = 0;
        for (final Member member : members)
        {
            if (member != null && member.established && member.counted)
            {
                count++;
            }
        }
        return count;
    }

    /** @return a snapshot of the publication's counters by label. */
    public Map<String, Long> counters()
    {
        return counters.snapshot(RmcastCounter.FRAGMENTS_SENT, RmcastCounter.REPAIR_REQUESTS_REFUSED);
    }

    /**
     * Send a message of up to {@link #maxMessageLength()} bytes, fragmented to the path MTU.
     *
     * @param source where the message is.
     * @param offset its offset.
     * @param length its length.
     * @return the new position (the sequence after its last fragment), or {@link #NOT_CONNECTED},
     *         {@link #BACK_PRESSURED} or {@link #CLOSED}.
     * @throws RdmaException EINVAL if the message is longer than {@link #maxMessageLength()}, or a claim is open.
     */
    public long offer(final MemorySegment source, final long offset, final int length)
    {
        // checks as plain ifs: a check(condition, message) call would build its message on every offer
        if (length < 0 || length > maxMessageLength)
        {
            throw new RdmaException(Errno.EINVAL, "offer: length " + length + " is outside 0.." + maxMessageLength +
                " (maxMessageLength)");
        }
        if (claimed)
        {
            throw new RdmaException(Errno.EINVAL, "offer: a claim is open; commit or abort it first");
        }
        if (closed)
        {
            return CLOSED;
        }
        duty();
        if (length <= maxPayload)
        {
            if (!fitsOpen(length))
            {
                final long admitted = openSlotForMessage();
                if (admitted < 0)
                {
                    return admitted;
                }
            }
            final int frame = align(openLength, FrameHeader.FRAME_ALIGNMENT);
            MemorySegment.copy(source, offset, window, openSlot + frame + FrameHeader.LENGTH, length);
            appendFrame(frame, length);
            return nextSequence;
        }
        // a fragmented message takes whole slots of its own, after whatever the open one holds
        postOpen();
        final int fragments = (length + maxPayload - 1) / maxPayload;
        final long admitted = admit(fragments);
        if (admitted < 0)
        {
            return admitted;
        }
        long sequence = nextSequence;
        int remaining = length;
        long from = offset;
        for (int i = 0; i < fragments; i++)
        {
            final int chunk = Math.min(remaining, maxPayload);
            final byte flags = (byte)((i == 0 ? FrameHeader.BEGIN_FLAG : 0) |
                (i == fragments - 1 ? FrameHeader.END_FLAG : 0));
            final long slot = beginSlot(sequence);
            MemorySegment.copy(source, from, window, slot + FrameHeader.LENGTH, chunk);
            FrameHeader.write(window, slot, FrameHeader.TYPE_DATA, flags, sessionId, chunk, length, sequence);
            awaitSendRoom();
            postFrame(slot, FrameHeader.LENGTH + chunk);
            sequence++;
            from += chunk;
            remaining -= chunk;
        }
        nextSequence = sequence;
        counters.add(RmcastCounter.FRAGMENTS_SENT, fragments);
        counters.increment(RmcastCounter.MESSAGES_SENT);
        counters.add(RmcastCounter.BYTES_SENT, length);
        flushIfDue();
        return sequence;
    }

    /** @return whether a message of this length still fits in the open slot's datagram. */
    private boolean fitsOpen(final int length)
    {
        return openSlot >= 0 &&
            align(openLength, FrameHeader.FRAME_ALIGNMENT) + FrameHeader.LENGTH + length <= maxDatagram;
    }

    /**
     * Post the open slot (full, or not) and open the next for a message of one fragment.
     *
     * @return 0, or what admission refused with.
     */
    private long openSlotForMessage()
    {
        postOpen();
        final long admitted = admit(1);
        if (admitted < 0)
        {
            return admitted;
        }
        openSlot = beginSlot(nextSequence);
        openLength = 0;
        nextSequence++;
        return 0;
    }

    /** Write the header of a frame whose payload is in the open slot at frame + header, and chain it. */
    private void appendFrame(final int frame, final int length)
    {
        FrameHeader.write(window, openSlot + frame, FrameHeader.TYPE_DATA, FrameHeader.UNFRAGMENTED, sessionId,
            length, length, nextSequence - 1);
        if (frame > 0)
        {
            FrameHeader.markMore(window, openSlot + openLastFrame);
        }
        openLastFrame = frame;
        openLength = frame + FrameHeader.LENGTH + length;
        counters.increment(RmcastCounter.MESSAGES_SENT);
        counters.add(RmcastCounter.BYTES_SENT, length);
        flushIfDue();
    }

    /** Send the open slot's datagram, if there is one and no claim is being written into it. */
    private void postOpen()
    {
        if (openSlot < 0 || claimed)
        {
            return;
        }
        awaitSendRoom();
        postFrame(openSlot, openLength);
        openSlot = -1;
        counters.increment(RmcastCounter.FRAGMENTS_SENT);
    }

    /**
     * Send a whole segment.
     *
     * @param message the message.
     * @return as {@link #offer(MemorySegment, long, int)}.
     */
    public long offer(final MemorySegment message)
    {
        return offer(message, 0, Math.toIntExact(message.byteSize()));
    }

    /**
     * Claim a region of the window for a message of one fragment, to write in place and {@link BufferClaim#commit()}.
     *
     * @param length up to {@link #maxPayloadLength()} bytes.
     * @param claim  the claim to fill.
     * @return the position the message will end at, or {@link #NOT_CONNECTED}, {@link #BACK_PRESSURED},
     *         {@link #CLOSED}.
     * @throws RdmaException EINVAL if the length exceeds one fragment's payload, or a claim is open.
     */
    public long tryClaim(final int length, final BufferClaim claim)
    {
        if (length < 0 || length > maxPayload)
        {
            throw new RdmaException(Errno.EINVAL, "tryClaim: length " + length + " is outside 0.." + maxPayload +
                " (one fragment's payload; offer fragments longer messages)");
        }
        if (claimed)
        {
            throw new RdmaException(Errno.EINVAL, "tryClaim: a claim is open; commit or abort it first");
        }
        if (closed)
        {
            return CLOSED;
        }
        duty();
        if (!fitsOpen(length))
        {
            final long admitted = openSlotForMessage();
            if (admitted < 0)
            {
                return admitted;
            }
        }
        claimFrame = align(openLength, FrameHeader.FRAME_ALIGNMENT);
        claimed = true;
        claim.wrap(this, window, openSlot + claimFrame + FrameHeader.LENGTH, length);
        return nextSequence;
    }

    void commitClaim(final int length)
    {
        claimed = false;
        appendFrame(claimFrame, length);
    }

    /**
     * Post the open slot and poll the send queue, every {@link MulticastConfig#offersPerFlush()} offers: the poll
     * reclaims completions and makes the engine send what it holds for it.
     */
    private void flushIfDue()
    {
        if (++offersSinceFlush >= config.offersPerFlush())
        {
            offersSinceFlush = 0;
            postOpen();
            reclaim();
        }
    }

    void abortClaim()
    {
        // the head word may already name the slot: that only makes repair validation more cautious
        claimed = false;
        if (openSlot >= 0 && openLength == 0)
        {
            // the claim opened the slot and nothing else is in it: give the sequence back
            openSlot = -1;
            nextSequence--;
        }
    }

    /** The duty cycle now and then from the offers, so a busy publisher still heartbeats and accepts. */
    private void duty()
    {
        if (++offersSinceDuty >= OFFERS_PER_DUTY)
        {
            doWork();
        }
    }

    private long admit(final int fragments)
    {
        if (!groupReached)
        {
            if (memberCount() < config.minGroupSize())
            {
                doWork();
                if (memberCount() < config.minGroupSize())
                {
                    counters.increment(RmcastCounter.NOT_CONNECTED);
                    return NOT_CONNECTED;
                }
            }
            groupReached = true;
        }
        if (nextSequence + fragments > positionLimit)
        {
            positionLimit = computeLimit();
            if (nextSequence + fragments > positionLimit)
            {
                doWork();
                positionLimit = computeLimit();
                if (nextSequence + fragments > positionLimit)
                {
                    counters.increment(RmcastCounter.BACK_PRESSURED);
                    return BACK_PRESSURED;
                }
            }
        }
        final int needed = Math.min(fragments, config.sendQueueDepth());
        if (postedSends - completedSends + needed > config.sendQueueDepth())
        {
            reclaim();
            if (postedSends - completedSends + needed > config.sendQueueDepth())
            {
                counters.increment(RmcastCounter.BACK_PRESSURED);
                return BACK_PRESSURED;
            }
        }
        return 0;
    }

    /**
     * Mark the slot of a sequence as being rewritten before touching it: a subscriber's READ of the fragment
     * the slot held before reads this word afterwards and so knows its copy may be torn.
     */
    private long beginSlot(final long sequence)
    {
        LONG.setOpaque(control, (long)HEAD_OFFSET, sequence + 1);
        VarHandle.storeStoreFence();
        return slotOffset(sequence);
    }

    private long slotOffset(final long sequence)
    {
        return (long)((int)sequence & slotMask) * slotLength;
    }

    private void awaitSendRoom()
    {
        // within a long message only: admit checked room for its first sends; the device frees the rest in time
        while (postedSends - completedSends >= config.sendQueueDepth())
        {
            reclaim();
        }
    }

    private void postFrame(final long slot, final int frameLength)
    {
        postedSends++;
        final boolean signal = (postedSends % SIGNAL_EVERY) == 0 ||
            postedSends - completedSends >= config.sendQueueDepth();
        sendWr.wrId(postedSends).sendFlags(signal ? SendFlags.SIGNALED : 0)
            .sge(window.address() + slot, frameLength, windowMr.lkey());
        qp.postSend(sendWr);
    }

    private int reclaim()
    {
        final int n = sendCq.poll(wcs);
        for (int i = 0; i < n; i++)
        {
            final WorkCompletion wc = wcs[i];
            if (!wc.isSuccess())
            {
                throw new RdmaException(Errno.EIO, "a send to the group failed: " + wc.status().description());
            }
            if (wc.wrId() > completedSends)
            {
                completedSends = wc.wrId();
            }
        }
        return n;
    }

    private long computeLimit()
    {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        boolean any = false;
        for (final Member member : members)
        {
            if (member != null && member.counted)
            {
                final long position = (long)LONG.getAcquire(status,
                    (long)member.index * Member.STATUS_ENTRY_LENGTH + Member.POSITION_OFFSET);
                min = Math.min(min, position);
                max = Math.max(max, position);
                any = true;
            }
        }
        if (!any)
        {
            return Long.MAX_VALUE;
        }
        return (config.flowControl() == FlowControl.MIN ? min : max) + windowSlots;
    }

    /**
     * The publication's duty cycle: reclaim send completions, take connection-manager events (members joining
     * and leaving), heartbeat, and stop waiting for members whose status stood still past the timeout.
     *
     * @return the work done, 0 if none.
     */
    public int doWork()
    {
        if (closed)
        {
            return 0;
        }
        offersSinceDuty = 0;
        if (openSlot >= 0 && !claimed)
        {
            postOpen();
            offersSinceFlush = 0;
        }
        int work = reclaim();
        final long now = System.nanoTime();
        work += pollCm(now);
        if (now - lastHeartbeatNs >= config.heartbeatIntervalNs() &&
            postedSends - completedSends < config.sendQueueDepth())
        {
            sendHeartbeat(now);
            work++;
        }
        work += checkMembers(now);
        return work;
    }

    private void sendHeartbeat(final long now)
    {
        lastHeartbeatNs = now;
        heartbeatToggle ^= 1;
        final long offset = (long)heartbeatToggle * SLOT_ALIGNMENT;
        FrameHeader.write(heartbeats, offset, FrameHeader.TYPE_HEARTBEAT, (byte)0, sessionId, HeartbeatBody.LENGTH,
            0, sentHead());
        postedSends++;
        final boolean signal = (postedSends % SIGNAL_EVERY) == 0;
        sendWr.wrId(postedSends).sendFlags(signal ? SendFlags.SIGNALED : 0)
            .sge(heartbeats.address() + offset, heartbeatLength, windowMr.lkey());
        qp.postSend(sendWr);
        counters.increment(RmcastCounter.HEARTBEATS_SENT);
    }

    private int checkMembers(final long now)
    {
        int work = 0;
        // a publisher that did not look for half the timeout (its thread descheduled, a GC, an application busy
        // elsewhere) cannot tell a member's silence from its own: the statuses written meanwhile may not have
        // been taken yet. Every member's silence counts from now, so only time the publisher was looking counts
        final boolean wasAway = now - lastMemberCheckNs > config.memberTimeoutNs() / 2;
        lastMemberCheckNs = now;
        for (final Member member : members)
        {
            if (member == null || !member.counted)
            {
                continue;
            }
            if (wasAway)
            {
                member.lastSeenNs = now;
            }
            final long liveness = (long)LONG.getAcquire(status,
                (long)member.index * Member.STATUS_ENTRY_LENGTH + Member.LIVENESS_OFFSET);
            if (dropsSlowMembers && member.established)
            {
                final long position = (long)LONG.getAcquire(status,
                    (long)member.index * Member.STATUS_ENTRY_LENGTH + Member.POSITION_OFFSET);
                if (nextSequence > position + windowSlots)
                {
                    // what it needs next was overwritten: it cannot repair, only lose, so it goes, and is told
                    member.counted = false;
                    counters.increment(RmcastCounter.MEMBERS_DROPPED);
                    positionLimit = computeLimit();
                    listener.onMemberDropped(member.id.peerAddress(), position, nextSequence);
                    disconnectQuietly(member.id);
                    work++;
                    continue;
                }
            }
            if (liveness != member.lastLiveness)
            {
                member.lastLiveness = liveness;
                member.lastSeenNs = now;
            }
            else if (now - member.lastSeenNs > config.memberTimeoutNs())
            {
                // a dead subscriber sends no DREQ: its silence alone releases min flow control
                member.counted = false;
                counters.increment(RmcastCounter.MEMBERS_TIMED_OUT);
                positionLimit = computeLimit();
                disconnectQuietly(member.id);
                work++;
            }
        }
        return work;
    }

    private int pollCm(final long now)
    {
        final CmEvent event = CmEvents.next(channel);
        if (event == null)
        {
            return 0;
        }
        final CmId id = event.id();
        final CmEventType type = event.type();
        final byte[] privateData = event.connParam() == null ? null : event.connParam().privateData();
        event.ack();
        switch (type)
        {
            case CONNECT_REQUEST -> onConnectRequest(id, privateData, now);
            case ESTABLISHED ->
            {
                if (id.context() instanceof Member member)
                {
                    member.established = true;
                    member.lastSeenNs = now;
                    counters.increment(RmcastCounter.MEMBERS_JOINED);
                }
            }
            case DISCONNECTED, CONNECT_ERROR, UNREACHABLE, REJECTED, DEVICE_REMOVAL ->
            {
                if (id.context() instanceof Member member)
                {
                    release(member);
                }
            }
            default ->
            {
            }
        }
        return 1;
    }

    private void onConnectRequest(final CmId id, final byte[] privateData, final long now)
    {
        final RepairRequest request = RepairRequest.decode(privateData);
        int index = -1;
        for (int i = 0; i < members.length && index < 0; i++)
        {
            if (members[i] == null)
            {
                index = i;
            }
        }
        if (request == null || request.sessionId() != sessionId || index < 0 || id.verbs() != context)
        {
            // another session's subscriber (this publisher restarted on its port), a stranger, or no room
            counters.increment(RmcastCounter.REPAIR_REQUESTS_REFUSED);
            id.reject(null);
            id.close();
            return;
        }
        // a replay under MAX with slow members dropped starts half a window back, not at the window's tail: there
        // the next send would put it a window behind and drop it again before it could catch up (a dropped member
        // that rejoins asks for a replay)
        final long replayFrom = dropsSlowMembers ? nextSequence - windowSlots / 2 : nextSequence - windowSlots + 1;
        final long start = request.replay() ? Math.max(0, replayFrom) : nextSequence;
        final long entry = (long)index * Member.STATUS_ENTRY_LENGTH;
        LONG.setRelease(status, entry + Member.POSITION_OFFSET, start);
        LONG.setRelease(status, entry + Member.LIVENESS_OFFSET, 0L);
        final Member member = new Member(id, index, now);
        members[index] = member;
        id.context(member);
        id.createQp(pd, QpInitAttr.of(QpType.RC, rcCq, QpCap.of(1, 1)));
        final RepairGrant grant = new RepairGrant(sessionId, windowMr.address(), windowMr.rkey(), windowSlots,
            slotLength, controlMr.address() + HEAD_OFFSET, controlMr.rkey(), statusMr.address() + entry,
            statusMr.rkey(), start, maxPayload);
        id.accept(ConnParam.withPrivateData(grant.encode()));
        positionLimit = Math.min(positionLimit, computeLimit());
    }

    private void release(final Member member)
    {
        if (members[member.index] != member)
        {
            return;
        }
        if (member.counted)
        {
            member.counted = false;
            counters.increment(RmcastCounter.MEMBERS_LEFT);
        }
        members[member.index] = null;
        positionLimit = computeLimit();
        destroy(member.id);
    }

    private static void disconnectQuietly(final CmId id)
    {
        try
        {
            id.disconnect();
        }
        catch (final RdmaException ignored)
        {
            // not connected (yet, or any more): the member is released when its id's last event comes
        }
    }

    private static void destroy(final CmId id)
    {
        try
        {
            if (id.qp() != null)
            {
                id.destroyQp();
            }
        }
        finally
        {
            id.close();
        }
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        try
        {
            // what the open slot holds goes out, as what was posted does
            postOpen();
            reclaim();
        }
        catch (final RdmaException ignored)
        {
            // the device is failing: closing goes on
        }
        closed = true;
        try
        {
            for (final Member member : members)
            {
                if (member != null)
                {
                    disconnectQuietly(member.id);
                    destroy(member.id);
                }
            }
        }
        finally
        {
            resources.close();
        }
    }
}
