package io.rdma4j.rmcast;

import io.rdma4j.stat.StatDirectory;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The settings of a publication or subscription, fluent and mutable until {@link #conclude()} checks them,
 * as Aeron's contexts are. Both ends of a session should agree on {@link #maxMessageLength}; the window's size
 * and slot length travel from the publisher in the repair connection's accept.
 */
public final class MulticastConfig
{
    /** The largest message the deliverables ask for: 16 MiB. */
    public static final int DEFAULT_MAX_MESSAGE_LENGTH = 16 * 1024 * 1024;

    private int windowSlots = 8192;
    private int mtu;
    private int maxMessageLength = DEFAULT_MAX_MESSAGE_LENGTH;
    /** 0 until concluded: then the default, 256 or half the window, whichever is less. */
    private int sendQueueDepth;
    private int receiveSlots = 1024;
    private int maxMembers = 64;
    private int maxImages = 16;
    private int minGroupSize;
    private FlowControl flowControl = FlowControl.MIN;
    private JoinPosition joinPosition = JoinPosition.LIVE;
    private int maxRepairFragments = 256;
    private long heartbeatIntervalNs = TimeUnit.MILLISECONDS.toNanos(1);
    private long statusIntervalNs = TimeUnit.MILLISECONDS.toNanos(1);
    private long repairDelayNs = TimeUnit.MICROSECONDS.toNanos(100);
    /**
     * 5 s, as Aeron's publication connection timeout: at 2 s, four live subscribers on two loaded cores (load 25)
     * were let go 16 times in one 64 B run, their polls 20-170 ms apart and a rejoin's ring taking seconds.
     */
    private long memberTimeoutNs = TimeUnit.SECONDS.toNanos(5);
    private long publisherTimeoutNs = TimeUnit.SECONDS.toNanos(2);
    private int cmTimeoutMs = 2000;
    private int repairPort;
    private int repairAckTimeout = 10;
    private int offersPerFlush = 1;
    private boolean dropSlowMembers = true;
    /** Null until concluded: then what the properties say ({@code rdma4j.stat}), true by default. */
    private Boolean stat;
    /** Null until concluded: then what the properties say ({@code rdma4j.stat.dir}), or the user's default. */
    private Path statDirectory;
    private boolean concluded;

    /** The defaults: a window of 8192 fragments, the port's MTU, 16 MiB messages, MIN flow control, LIVE join. */
    public MulticastConfig()
    {
    }

    /**
     * Check every setting once; after this the object no longer changes.
     *
     * @return this.
     * @throws RdmaException EINVAL naming the setting out of its range.
     */
    public MulticastConfig conclude()
    {
        if (concluded)
        {
            return this;
        }
        check(windowSlots >= 64 && Integer.bitCount(windowSlots) == 1, "windowSlots " + windowSlots +
            " must be a power of two, 64 or more");
        if (sendQueueDepth == 0)
        {
            sendQueueDepth = Math.max(32, Math.min(256, windowSlots / 2));
        }
        check(mtu == 0 || mtu >= 256, "mtu " + mtu + " must be 0 (the port's active MTU) or 256 or more");
        check(maxMessageLength >= 0, "maxMessageLength " + maxMessageLength + " must not be negative");
        check(sendQueueDepth >= 32 && sendQueueDepth < windowSlots, "sendQueueDepth " + sendQueueDepth +
            " must be 32 or more and below windowSlots " + windowSlots + " (a slot is rewritten only once its send " +
            "completed)");
        check(receiveSlots >= 16, "receiveSlots " + receiveSlots + " must be 16 or more");
        check(maxMembers >= 1, "maxMembers " + maxMembers + " must be 1 or more");
        check(maxImages >= 1, "maxImages " + maxImages + " must be 1 or more");
        check(minGroupSize >= 0 && minGroupSize <= maxMembers, "minGroupSize " + minGroupSize +
            " must be within 0..maxMembers " + maxMembers);
        check(maxRepairFragments >= 1, "maxRepairFragments " + maxRepairFragments + " must be 1 or more");
        check(heartbeatIntervalNs > 0 && statusIntervalNs > 0 && repairDelayNs >= 0, "intervals must be positive");
        check(memberTimeoutNs > statusIntervalNs, "memberTimeout must exceed statusInterval, or a live member " +
            "looks dead");
        check(publisherTimeoutNs > heartbeatIntervalNs, "publisherTimeout must exceed heartbeatInterval");
        check(offersPerFlush >= 1, "offersPerFlush " + offersPerFlush + " must be 1 or more");
        check(repairAckTimeout >= 1 && repairAckTimeout <= 31, "repairAckTimeout " + repairAckTimeout +
            " must be within 1..31 (4.096 us x 2^value)");
        if (stat == null)
        {
            try
            {
                stat = StatDirectory.enabledFromSystem();
            }
            catch (final IllegalArgumentException ex)
            {
                check(false, ex.getMessage());
            }
        }
        if (statDirectory == null)
        {
            statDirectory = StatDirectory.fromSystem();
        }
        concluded = true;
        return this;
    }

    private static void check(final boolean condition, final String message)
    {
        RdmaException.check(condition, Errno.EINVAL, "MulticastConfig: " + message);
    }

    private void mutable()
    {
        RdmaException.check(!concluded, Errno.EINVAL, "MulticastConfig: concluded already, it no longer changes");
    }

    /** @return fragments the publisher's retransmit window holds (and each subscriber's repair ring). */
    public int windowSlots()
    {
        return windowSlots;
    }

    /**
     * @param value a power of two, 64 or more: how far a member may fall behind and still repair.
     * @return this.
     */
    public MulticastConfig windowSlots(final int value)
    {
        mutable();
        windowSlots = value;
        return this;
    }

    /** @return the frame size in bytes, header included; 0 for the port's active MTU. */
    public int mtu()
    {
        return mtu;
    }

    public MulticastConfig mtu(final int value)
    {
        mutable();
        mtu = value;
        return this;
    }

    /** @return the largest message offer takes and a subscriber reassembles. */
    public int maxMessageLength()
    {
        return maxMessageLength;
    }

    public MulticastConfig maxMessageLength(final int value)
    {
        mutable();
        maxMessageLength = value;
        return this;
    }

    /** @return sends the publisher keeps posted before it reclaims completions (0 before conclude: the default). */
    public int sendQueueDepth()
    {
        return sendQueueDepth;
    }

    public MulticastConfig sendQueueDepth(final int value)
    {
        mutable();
        sendQueueDepth = value;
        return this;
    }

    /** @return receives a subscription keeps posted on its UD QP. */
    public int receiveSlots()
    {
        return receiveSlots;
    }

    public MulticastConfig receiveSlots(final int value)
    {
        mutable();
        receiveSlots = value;
        return this;
    }

    /** @return entries in the publisher's status array: the most subscribers it serves at once. */
    public int maxMembers()
    {
        return maxMembers;
    }

    public MulticastConfig maxMembers(final int value)
    {
        mutable();
        maxMembers = value;
        return this;
    }

    /** @return publisher sessions a subscription follows at once. */
    public int maxImages()
    {
        return maxImages;
    }

    public MulticastConfig maxImages(final int value)
    {
        mutable();
        maxImages = value;
        return this;
    }

    /** @return members a publication waits for before its first send (offer says NOT_CONNECTED until then). */
    public int minGroupSize()
    {
        return minGroupSize;
    }

    public MulticastConfig minGroupSize(final int value)
    {
        mutable();
        minGroupSize = value;
        return this;
    }

    public FlowControl flowControl()
    {
        return flowControl;
    }

    public MulticastConfig flowControl(final FlowControl value)
    {
        mutable();
        flowControl = java.util.Objects.requireNonNull(value, "flowControl");
        return this;
    }

    public JoinPosition joinPosition()
    {
        return joinPosition;
    }

    public MulticastConfig joinPosition(final JoinPosition value)
    {
        mutable();
        joinPosition = java.util.Objects.requireNonNull(value, "joinPosition");
        return this;
    }

    /** @return the most fragments one repair READ fetches. */
    public int maxRepairFragments()
    {
        return maxRepairFragments;
    }

    public MulticastConfig maxRepairFragments(final int value)
    {
        mutable();
        maxRepairFragments = value;
        return this;
    }

    /** @return how often a publication sends its head and listener address to the group. */
    public long heartbeatIntervalNs()
    {
        return heartbeatIntervalNs;
    }

    public MulticastConfig heartbeatIntervalNs(final long value)
    {
        mutable();
        heartbeatIntervalNs = value;
        return this;
    }

    /** @return the longest a subscriber goes without writing its position (it writes sooner as it advances). */
    public long statusIntervalNs()
    {
        return statusIntervalNs;
    }

    public MulticastConfig statusIntervalNs(final long value)
    {
        mutable();
        statusIntervalNs = value;
        return this;
    }

    /** @return how long a gap may stay open before a READ repairs it: time for a reordered frame to come. */
    public long repairDelayNs()
    {
        return repairDelayNs;
    }

    public MulticastConfig repairDelayNs(final long value)
    {
        mutable();
        repairDelayNs = value;
        return this;
    }

    /** @return how long a member's status may stay still before flow control stops waiting for it. */
    public long memberTimeoutNs()
    {
        return memberTimeoutNs;
    }

    public MulticastConfig memberTimeoutNs(final long value)
    {
        mutable();
        memberTimeoutNs = value;
        return this;
    }

    /** @return how long a session may stay silent (no frame, no heartbeat) before its image goes. */
    public long publisherTimeoutNs()
    {
        return publisherTimeoutNs;
    }

    public MulticastConfig publisherTimeoutNs(final long value)
    {
        mutable();
        publisherTimeoutNs = value;
        return this;
    }

    /** @return the connection manager's address and route resolution timeout. */
    public int cmTimeoutMs()
    {
        return cmTimeoutMs;
    }

    public MulticastConfig cmTimeoutMs(final int value)
    {
        mutable();
        cmTimeoutMs = value;
        return this;
    }

    /**
     * @return offers between two sends of the open datagram and polls of the publication's send queue. Up to
     *         this many small messages are packed into one datagram (as far as the MTU allows), each with its
     *         header; and an engine may hold posted sends until the poster's next poll, to send a burst in one
     *         system call (the soft device in polling mode does, for up to 1 ms): 1 sends each message at once
     *         (latency), more packs and batches them (rate). A publisher that stops offering calls
     *         {@link Publication#doWork()}, which sends what waits.
     */
    public int offersPerFlush()
    {
        return offersPerFlush;
    }

    public MulticastConfig offersPerFlush(final int value)
    {
        mutable();
        offersPerFlush = value;
        return this;
    }

    /**
     * @return under {@link FlowControl#MAX}: whether a member whose reported position fell more than a window
     *         behind is disconnected, with {@link PublicationListener#onMemberDropped} at the publisher and an
     *         unrecoverable-loss event at the member (true, the default), or left to repair what the window still
     *         holds and report the rest lost itself (false). MIN never lets a member fall that far.
     */
    public boolean dropSlowMembers()
    {
        return dropSlowMembers;
    }

    public MulticastConfig dropSlowMembers(final boolean value)
    {
        mutable();
        dropSlowMembers = value;
        return this;
    }

    /** @return the repair QP's local ACK timeout exponent (4.096 us x 2^value; 10 is 4.2 ms). */
    public int repairAckTimeout()
    {
        return repairAckTimeout;
    }

    public MulticastConfig repairAckTimeout(final int value)
    {
        mutable();
        repairAckTimeout = value;
        return this;
    }

    /** @return the port of the publisher's repair listener; 0 for any free one (heartbeats announce it). */
    public int repairPort()
    {
        return repairPort;
    }

    public MulticastConfig repairPort(final int value)
    {
        mutable();
        repairPort = value;
        return this;
    }

    /**
     * @return whether the publication or subscription keeps a counters file for {@code rdma4j stat} (true by default,
     *         or what the {@code rdma4j.stat} property or {@code RDMA4J_STAT} says, as for the soft device).
     */
    public boolean stat()
    {
        return stat == null || stat;
    }

    public MulticastConfig stat(final boolean value)
    {
        mutable();
        stat = value;
        return this;
    }

    /**
     * @return where the counters file goes: {@code rdma4j.stat.dir} or {@code RDMA4J_STAT_DIR} if set, else
     *         {@code <java.io.tmpdir>/rdma4j-stat-USER}, the directory the soft device's files and {@code rdma4j stat}
     *         use; it must be this user's alone ({@code rwx------}), or the object runs without a file.
     */
    public Path statDirectory()
    {
        return statDirectory == null ? StatDirectory.fromSystem() : statDirectory;
    }

    public MulticastConfig statDirectory(final Path value)
    {
        mutable();
        statDirectory = Objects.requireNonNull(value, "statDirectory");
        return this;
    }
}
