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
import io.rdma4j.rmcast.protocol.FrameHeader;
import io.rdma4j.rmcast.protocol.HeartbeatBody;
import io.rdma4j.rmcast.protocol.RepairGrant;
import io.rdma4j.rmcast.protocol.RepairRequest;
import io.rdma4j.stat.StatFilePublisher;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.ReplyAddress;
import io.rdma4j.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Receives a multicast group's publisher sessions: joins the group as a full member through the connection
 * manager, connects to each session's repair listener (announced by its heartbeats) over RC, and
 * {@link #poll delivers} each session's messages whole and in order, repairing gaps by RDMA READ from the
 * publisher's window, or reporting them lost ({@link SubscriptionListener#onUnrecoverableLoss}).
 * <p>
 * Not thread-safe: one thread polls. A subscriber of several groups opens a subscription per group.
 */
public final class Subscription implements AutoCloseable
{
    /** Fragments a poll may still deliver; one per subscription, so the data path allocates nothing. */
    static final class Budget
    {
        int remaining;
    }

    private static final int KIND_MASK = 0xff;
    /** CM events and timeouts are looked at once in this many polls that found datagrams. */
    private static final int POLLS_PER_HOUSEKEEPING = 16;

    private final MulticastConfig config;
    private final SubscriptionListener listener;
    private final Resources resources = new Resources();
    private final EventChannel channel;
    private final CmId udId;
    private final Context context;
    private final ProtectionDomain pd;
    private final CompletionQueue recvCq;
    private final CompletionQueue rcCq;
    private final QueuePair qp;
    private final InetAddress localAddress;
    private final InetSocketAddress group;
    private final MemorySegment receive;
    private final MemoryRegion receiveMr;
    private final int receiveSlotLength;
    private final RecvWr recvWr = new RecvWr();
    private static final System.Logger LOG = System.getLogger(Subscription.class.getName());

    private final WorkCompletion[] wcs = WorkCompletion.array(64);
    private final WorkCompletion[] rcWcs = WorkCompletion.array(32);
    private final SessionImage[] images;
    /**
     * Sessions whose image went lately, and until when their heartbeats are ignored: a refused or failed repair
     * connection is retried after a pause, not on every heartbeat, and a session that ended stays ended.
     */
    private final int[] endedSessions;
    private final long[] endedUntilNs;
    /** Where each ended session's delivery stood (all below delivered or reported lost), -1 if it never began. */
    private final long[] endedPositions;
    private int nextEnded;
    /** Numbers the process's subscriptions in their counters files' names. */
    private static final AtomicInteger SUBSCRIPTIONS = new AtomicInteger();
    private final Counters counters = new Counters();
    private final Budget budget = new Budget();
    private int generation;
    private int polls;
    private boolean closed;

    private Subscription(final MulticastConfig config, final InetAddress localAddress, final InetSocketAddress group,
        final SubscriptionListener listener) throws InterruptedException
    {
        this.config = config.conclude();
        this.listener = listener == null ? SubscriptionListener.NONE : listener;
        this.localAddress = localAddress;
        this.group = group;
        boolean opened = false;
        try
        {
            channel = resources.add(RdmaCm.createEventChannel());
            udId = resources.add(channel.createId(null, PortSpace.UDP));
            udId.bindAddr(new InetSocketAddress(localAddress, 0));
            context = udId.verbs();
            pd = resources.add(context.allocPd());
            final int portMtu = context.queryPort(1).activeMtu().bytes();
            receiveSlotLength = Publication.align(ReplyAddress.GRH_BYTES + portMtu, Publication.SLOT_ALIGNMENT);
            recvCq = resources.add(context.createCq(config.receiveSlots(), null, 0));
            rcCq = resources.add(context.createCq((2 * SessionImage.MAX_REPAIRS_IN_FLIGHT + 2) * config.maxImages(), null,
                0));
            qp = udId.createQp(pd, QpInitAttr.of(QpType.UD, recvCq, QpCap.of(1, config.receiveSlots())));
            final Arena arena = resources.add(Arena.ofShared());
            receive = arena.allocate((long)config.receiveSlots() * receiveSlotLength, 4096);
            receiveMr = resources.add(pd.regMr(receive, EnumSet.of(AccessFlag.LOCAL_WRITE)));
            for (int i = 0; i < config.receiveSlots(); i++)
            {
                repost(i);
            }
            images = new SessionImage[config.maxImages()];
            endedSessions = new int[config.maxImages()];
            endedUntilNs = new long[config.maxImages()];
            endedPositions = new long[config.maxImages()];
            udId.joinMulticast(group, JoinFlags.FULLMEMBER, null);
            channel.expect(CmEventType.MULTICAST_JOIN, config.cmTimeoutMs(), TimeUnit.MILLISECONDS).ack();
            final StatFilePublisher.Registration stat = RmcastStat.open(config, "rmcast-sub-" +
                SUBSCRIPTIONS.incrementAndGet(), group.getAddress().getHostAddress(), "subscription", counters,
                RmcastCounter.FRAGMENTS_RECEIVED, RmcastCounter.REPAIR_CONNECT_FAILURES, List.of(
                    new RmcastStat.Gauge(RmcastStat.SUBSCRIPTION_IMAGES_ID, "images", this::imageCount),
                    new RmcastStat.Gauge(RmcastStat.SUBSCRIPTION_MAX_LAG_ID, "max_lag", this::maxLag)),
                String.format("subscription group %s on %s join %s, up to %d sessions%n",
                    group.getAddress().getHostAddress(), localAddress.getHostAddress(), config.joinPosition(),
                    config.maxImages()));
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
     * Open a subscription: join the group and wait for publisher sessions.
     *
     * @param config       the settings; concluded here.
     * @param localAddress the address of this process's device.
     * @param group        the multicast group (the port is ignored).
     * @param listener     told of sessions and losses; null for none.
     * @return the subscription.
     * @throws RdmaException        EINVAL for settings out of range; what the connection manager raises.
     * @throws InterruptedException if interrupted while joining.
     */
    public static Subscription open(final MulticastConfig config, final InetAddress localAddress,
        final InetSocketAddress group, final SubscriptionListener listener) throws InterruptedException
    {
        return new Subscription(config, localAddress, group, listener);
    }

    /** @return the group. */
    public InetSocketAddress group()
    {
        return group;
    }

    /** @return sessions being delivered (repair connection up). */
    public int imageCount()
    {
        int count = 0;
        for (final SessionImage image : images)
        {
            if (image != null && image.state == SessionImage.State.ACTIVE)
            {
                count++;
            }
        }
        return count;
    }

    /**
     * @param sessionId a session.
     * @return the sequence that session's delivery has reached, or -1 if it is not being delivered.
     */
    public long position(final int sessionId)
    {
        final SessionImage image = find(sessionId);
        return image == null || image.state != SessionImage.State.ACTIVE ? -1 : image.position();
    }

    /**
     * @param sessionId a session.
     * @return how far behind the newest fragment known sent (by data or heartbeat) delivery is, in fragments;
     *         -1 if the session is not being delivered.
     */
    public long lag(final int sessionId)
    {
        final SessionImage image = find(sessionId);
        return image == null || image.state != SessionImage.State.ACTIVE ? -1 :
            image.highestKnown() - image.position();
    }

    /** @return the largest {@link #lag(int)} over the sessions being delivered, 0 if none. */
    public long maxLag()
    {
        long lag = 0;
        for (final SessionImage image : images)
        {
            if (image != null && image.state == SessionImage.State.ACTIVE)
            {
                lag = Math.max(lag, image.highestKnown() - image.position());
            }
        }
        return lag;
    }

    /** @return a snapshot of the subscription's counters by label. */
    public Map<String, Long> counters()
    {
        return counters.snapshot(RmcastCounter.FRAGMENTS_RECEIVED, RmcastCounter.REPAIR_CONNECT_FAILURES);
    }

    /**
     * Receive, repair and deliver.
     *
     * @param handler       receives each whole message.
     * @param fragmentLimit the most fragments to deliver in this call.
     * @return the work done (datagrams taken, fragments delivered, repairs and status writes posted): 0 if idle.
     */
    public int poll(final MessageHandler handler, final int fragmentLimit)
    {
        if (closed)
        {
            return 0;
        }
        budget.remaining = fragmentLimit;
        final long now = System.nanoTime();
        int work = 0;
        final int n = recvCq.poll(wcs, Math.min(Math.max(fragmentLimit, 1), wcs.length));
        for (int i = 0; i < n; i++)
        {
            final WorkCompletion wc = wcs[i];
            final int slot = (int)wc.wrId();
            if (wc.isSuccess())
            {
                onDatagram(slot, wc.byteLen(), handler, now);
            }
            else
            {
                failedReceive(wc);
            }
            repost(slot);
        }
        work += n;
        work += pollRepairCompletions(now);
        for (final SessionImage image : images)
        {
            if (image != null)
            {
                work += image.duty(now, handler, budget);
            }
        }
        if (n == 0 || ++polls >= POLLS_PER_HOUSEKEEPING)
        {
            polls = 0;
            work += housekeeping(now);
        }
        return work;
    }

    /** A failed receive of the group's QP: counted, and the first said (the counter says how often). */
    private void failedReceive(final WorkCompletion wc)
    {
        counters.increment(RmcastCounter.RECEIVE_ERRORS);
        if (counters.get(RmcastCounter.RECEIVE_ERRORS) == 1)
        {
            LOG.log(System.Logger.Level.WARNING, "rmcast: a receive from group " + group + " failed: " + wc.status());
        }
    }

    private void repost(final int slot)
    {
        qp.postRecv(recvWr.wrId(slot).sge(receiveMr, (long)slot * receiveSlotLength, receiveSlotLength));
    }

    private void onDatagram(final int slot, final int byteLength, final MessageHandler handler, final long now)
    {
        final long frame = (long)slot * receiveSlotLength + ReplyAddress.GRH_BYTES;
        final int frameLength = byteLength - ReplyAddress.GRH_BYTES;
        if (frameLength < FrameHeader.LENGTH || FrameHeader.version(receive, frame) != FrameHeader.CURRENT_VERSION ||
            FrameHeader.payloadLength(receive, frame) > frameLength - FrameHeader.LENGTH)
        {
            counters.increment(RmcastCounter.MALFORMED_FRAMES);
            return;
        }
        final int sessionId = FrameHeader.sessionId(receive, frame);
        final SessionImage image = find(sessionId);
        final byte type = FrameHeader.type(receive, frame);
        if (type == FrameHeader.TYPE_DATA)
        {
            if (image == null || image.state != SessionImage.State.ACTIVE)
            {
                counters.increment(RmcastCounter.FRAMES_WITHOUT_IMAGE);
                return;
            }
            image.onData(receive, frame, frameLength, now, handler, budget);
        }
        else if (type == FrameHeader.TYPE_HEARTBEAT && frameLength >= FrameHeader.LENGTH + HeartbeatBody.LENGTH)
        {
            final long head = FrameHeader.sequence(receive, frame);
            if (image != null)
            {
                image.onHeartbeat(head, now);
            }
            else
            {
                discover(sessionId, HeartbeatBody.listener(receive, frame + FrameHeader.LENGTH), head, now);
            }
        }
        else
        {
            counters.increment(RmcastCounter.MALFORMED_FRAMES);
        }
    }

    private SessionImage find(final int sessionId)
    {
        for (final SessionImage image : images)
        {
            if (image != null && image.sessionId == sessionId)
            {
                return image;
            }
        }
        return null;
    }

    /** A heartbeat of a session not seen before: connect to its repair listener (control path). */
    private void discover(final int sessionId, final InetSocketAddress repairAddress, final long head, final long now)
    {
        long resumeFrom = -1;
        for (int i = 0; i < endedSessions.length; i++)
        {
            if (endedSessions[i] == sessionId)
            {
                if (now - endedUntilNs[i] < 0)
                {
                    return;
                }
                // the session comes back (this member was dropped, or its connection failed): no silent gap
                resumeFrom = Math.max(resumeFrom, endedPositions[i]);
            }
        }
        int index = -1;
        for (int i = 0; i < images.length && index < 0; i++)
        {
            if (images[i] == null)
            {
                index = i;
            }
        }
        if (index < 0)
        {
            counters.increment(RmcastCounter.FRAMES_WITHOUT_IMAGE);
            return;
        }
        final CmId rcId = channel.createId(null, PortSpace.TCP);
        final SessionImage image = new SessionImage(sessionId, index, ++generation, repairAddress, rcId, config,
            counters, listener, now, head, resumeFrom);
        rcId.context(image);
        images[index] = image;
        try
        {
            rcId.resolveAddr(new InetSocketAddress(localAddress, 0), repairAddress, config.cmTimeoutMs());
        }
        catch (final RdmaException ex)
        {
            connectFailed(image, ex.getMessage(), false);
        }
    }

    private int pollRepairCompletions(final long now)
    {
        final int n = rcCq.poll(rcWcs);
        for (int i = 0; i < n; i++)
        {
            final WorkCompletion wc = rcWcs[i];
            final long wrId = wc.wrId();
            final int index = (int)(wrId >>> 8) & 0xffffff;
            final SessionImage image = index < images.length ? images[index] : null;
            if (image == null || image.generation != (int)(wrId >>> 32) || image.state != SessionImage.State.ACTIVE)
            {
                continue;
            }
            if (!wc.isSuccess())
            {
                // the publisher's side of the connection is gone: nothing more can be repaired
                remove(image, true);
                continue;
            }
            switch ((int)wrId & KIND_MASK)
            {
                case SessionImage.KIND_REPAIR_HEAD -> image.onRepairCompleted(now);
                case SessionImage.KIND_STATUS -> image.onStatusCompleted();
                default ->
                {
                }
            }
        }
        return n;
    }

    private int housekeeping(final long now)
    {
        int work = 0;
        for (final SessionImage image : images)
        {
            if (image != null && now - image.lastActivityNs > config.publisherTimeoutNs())
            {
                remove(image, true);
                work++;
            }
        }
        work += pollCm(now);
        return work;
    }

    private int pollCm(final long now)
    {
        final CmEvent event = CmEvents.next(channel);
        if (event == null)
        {
            return 0;
        }
        final CmEventType type = event.type();
        final CmId id = event.id();
        final ConnParam param = event.connParam();
        final byte[] privateData = param == null ? null : param.privateData();
        final int status = event.status();
        event.ack();
        if (!(id.context() instanceof SessionImage image) || images[image.slotIndex] != image)
        {
            return 1;
        }
        try
        {
            switch (type)
            {
                case ADDR_RESOLVED -> id.resolveRoute(config.cmTimeoutMs());
                case ROUTE_RESOLVED -> connect(image, id);
                case CONNECT_RESPONSE -> establish(image, id, privateData);
                case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED, DEVICE_REMOVAL ->
                    connectFailed(image, type + ", status " + status, true);
                case DISCONNECTED -> remove(image, true);
                default ->
                {
                }
            }
        }
        catch (final RdmaException ex)
        {
            connectFailed(image, ex.getMessage(), true);
        }
        return 1;
    }

    /**
     * Connect with a QP of our own rather than the id's: the connection manager's ACK timeout suits a WAN (the
     * soft one's is 2 s), and a repair READ whose response is lost must be retried in milliseconds, so the RTS
     * step below sets {@link MulticastConfig#repairAckTimeout()}.
     */
    private void connect(final SessionImage image, final CmId id)
    {
        RdmaException.check(id.verbs() == context, Errno.EINVAL, "the repair connection to " + image.repairAddress +
            " resolved to another device than the group's: bind both to one local address");
        final QueuePair rc = pd.createQp(QpInitAttr.of(QpType.RC, rcCq,
            QpCap.of(2 * SessionImage.MAX_REPAIRS_IN_FLIGHT + 2, 1)));
        image.repairQp(rc);
        rc.modify(id.initQpAttr(QpState.INIT));
        id.connect(ConnParam.builder().qpNum(rc.qpNum()).privateData(
            new RepairRequest(image.sessionId, config.joinPosition() == JoinPosition.REPLAY || image.resumes())
                .encode()).build());
    }

    private void establish(final SessionImage image, final CmId id, final byte[] privateData)
    {
        final RepairGrant grant = RepairGrant.decode(privateData);
        if (grant == null || grant.sessionId() != image.sessionId)
        {
            remove(image, false);
            return;
        }
        final QueuePair rc = image.repairQp();
        rc.modify(id.initQpAttr(QpState.RTR));
        rc.modify(id.initQpAttr(QpState.RTS).timeout(config.repairAckTimeout()));
        // the ring first, and the first status with it, then the RTU: the publisher's member timeout runs from
        // the RTU (ESTABLISHED), and allocating and registering a window-sized ring took seconds on a loaded
        // host, long enough for a member that had written nothing yet to be timed out before it began
        image.activate(grant, pd);
        id.establish();
    }

    /**
     * A repair connection that ended before or while it was set up: counted and said (once per try, and tries are
     * a publisher timeout apart), so that a session seen but never available is not silent.
     */
    private void connectFailed(final SessionImage image, final String why, final boolean reportUnavailable)
    {
        if (image.state != SessionImage.State.ACTIVE)
        {
            counters.increment(RmcastCounter.REPAIR_CONNECT_FAILURES);
            LOG.log(System.Logger.Level.WARNING, "rmcast: the repair connection for session " +
                Integer.toHexString(image.sessionId) + " to " + image.repairAddress + " failed: " + why);
        }
        remove(image, reportUnavailable);
    }

    private void remove(final SessionImage image, final boolean reportUnavailable)
    {
        if (images[image.slotIndex] == image)
        {
            images[image.slotIndex] = null;
        }
        endedSessions[nextEnded] = image.sessionId;
        endedUntilNs[nextEnded] = System.nanoTime() + config.publisherTimeoutNs();
        final int ended = nextEnded;
        nextEnded = (nextEnded + 1) % endedSessions.length;
        image.close(reportUnavailable);
        endedPositions[ended] = image.endPosition();
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            for (final SessionImage image : images)
            {
                if (image != null)
                {
                    try
                    {
                        image.rcId.disconnect();
                    }
                    catch (final RdmaException ignored)
                    {
                        // not connected: nothing to tell the publisher
                    }
                    remove(image, false);
                }
            }
        }
        finally
        {
            // the group's QP is the id's, made after the CQs it uses: it goes first, or a device that counts
            // references (rxe) refuses to destroy those CQs and the PD (EBUSY)
            try
            {
                udId.destroyQp();
            }
            finally
            {
                resources.close();
            }
        }
    }
}
