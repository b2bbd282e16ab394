package io.rdma4j.soft.engine;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.receive.ReceivePath;
import io.rdma4j.soft.transport.BatchEndWork;
import io.rdma4j.soft.transport.TransportQp;
import io.rdma4j.soft.verbs.VerbsDevice;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.soft.wire.PacketParser;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.WaitDriver;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The device's agent, in Agrona's shape: a duty cycle ({@link #doWork}) that receives a batch of datagrams
 * through the {@link ReceivePath}, does the work the batch left owed ({@link BatchEndList}: coalesced ACKs,
 * responses still owed), runs the QPs' timers when one is due, and sends what all that queued in one flush;
 * and an idle strategy that waits on the link when a cycle found nothing. It runs on the device's progress
 * thread, or, in polling mode, on a thread polling a CQ ({@link #progressInline}), or, in polling and waiting
 * modes, on a thread waiting for a CQ event or a completion ({@link #awaitReceiving}), which then waits on the link
 * itself; the receive lock (the receive role) lets one of them in at a time, so transports see one thread.
 */
final class ProgressAgent implements Agent
{
    private static final long IDLE_WAIT_NS = Link.IDLE_WAIT_NANOS;
    private static final long TIMER_WAIT_NS = TimeUnit.MICROSECONDS.toNanos(200);
    /** Datagrams the progress thread handles per duty cycle before it looks at its timers. */
    private static final int RECEIVE_BATCH = 64;
    /** Datagrams a poller handles per empty poll, so one poll stays short. */
    private static final int INLINE_BATCH = 16;
    /**
     * In polling mode, a poll this recent means a thread is polling: the progress thread then waits at most
     * this long and without asking same-host senders for a wake-up, since the poller reads their datagrams.
     */
    private static final long POLLER_ACTIVE_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * A poll reads the clock for {@link #lastInlinePollNs} on one in this many: a busy poller's empty poll costs
     * little more than the read (about a fifth of it, 25 ns, on 2026-11-27's EPYC), and the time it records is
     * then a few polls old, a microsecond or so against the millisecond it is judged by.
     */
    private static final int CLOCK_EVERY_POLLS = 8;
    /**
     * After a waiting thread gave the receive role up (it returned with its event), the progress thread stands back
     * this long, expecting it back: an event loop's thread handles its event and waits again within microseconds,
     * and a progress thread that took the link over in between would cost a wake-up of its own per message. A
     * waiter that does not come back leaves datagrams to wait at most this long.
     */
    private static final long WAITER_GRACE_NS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * A wait in the link that lasts this long slept: a {@code poll} that found a datagram ready returns within a
     * few microseconds, one that slept took at least a wake-up's time.
     */
    private static final long SLEPT_NS = TimeUnit.MICROSECONDS.toNanos(10);
    /**
     * A spin that paid ended within this many budgets: its last look's work (a receive and its completion) fits in
     * the slack, a spin that lost its core for a scheduler's slice (hundreds of microseconds) does not.
     */
    private static final long SPIN_OVERRUN = 2;

    private final Link link;
    private final ReceivePath receivePath;
    private final QpTable qpTable;
    private final LongSupplier clock;
    private final ProgressErrorLog errorLog;
    private final boolean pollsInline;
    private final boolean waitsInline;
    /** How long a waiter whose last wait found work polls the link before it blocks: see {@link #receiveUntil}. */
    private final WaitSpin waitSpin;
    private final Thread progressThread;
    /** Waits whose threads sleep without the role, to be offered it when it is given up. */
    private final RoleSeekers seekers = new RoleSeekers();
    /** Transports that owe work at the end of the batch being received; touched under the receive lock only. */
    private final BatchEndList batchEnd = new BatchEndList();
    /**
     * Held while datagrams are received and handled, and while timers run: the progress thread
     * and, in polling mode, threads polling a CQ take turns, so transports see one thread at a time.
     */
    private final ReentrantLock receiveLock = new ReentrantLock();
    private final ByteBuffer rxBuffer = ByteBuffer.allocateDirect(65536);
    private final MemorySegment rxSegment = MemorySegment.ofBuffer(rxBuffer);
    private final DatagramInfo rxInfo = new DatagramInfo();
    private final PacketParser rxParser = new PacketParser();
    private final PacketInfo rxPacket = new PacketInfo();
    /** The earliest deadline of any QP's timer: armed by posting threads, run under the receive lock. */
    private final TimerDeadline timerDeadline = new TimerDeadline();
    /** When a thread last polled a CQ in polling mode ({@link #pollBegins}), in {@link #nanoTime()}'s clock. */
    private volatile long lastInlinePollNs = Long.MIN_VALUE / 2;
    /** Polls since one read the clock; racy between pollers, which at worst delays a read by a poll. */
    private int pollsSinceClock = CLOCK_EVERY_POLLS;
    /**
     * Polling mode: a poll that received left what its packets queued (their ACKs) unsent, for the
     * poller's next post (a reply then leaves with the ACK, one system call on a batching link) or next
     * poll to send; the progress thread's next cycle, at most {@link #POLLER_ACTIVE_NS} away, sends it
     * if neither comes.
     */
    private volatile boolean flushOwed;
    /**
     * Waiting modes: a waiter returned with its event and left what its batch queued (the ACKs) unsent, for the
     * application's reply to take along (one system call, and one wake-up of the peer for both, which otherwise
     * wakes for the ACK and again for the reply). Sent by the next post, the next wait's first look, or the progress
     * thread within {@link #WAITER_GRACE_NS}; unlike {@link #flushOwed}, not by a poll, since an event consumer
     * polls its CQ before it replies.
     */
    private volatile boolean replyFlushOwed;
    /**
     * The latest the progress thread's current wait ends, in {@link #nanoTime()}'s clock: Long.MAX_VALUE
     * while it may wait long (or with no progress thread, or another idle strategy), so that a poll
     * leaves a flush owed only when that thread's next cycle is near.
     */
    private volatile long progressWaitEndNs = Long.MAX_VALUE;
    /** Set while the progress thread parks for an active poller: a poller that stops unparks it. */
    private volatile boolean parkedForPoller;
    /** Set by {@link #wakeup}: the next duty cycle runs the timers whether one is due or not. */
    private volatile boolean timersRequested;
    /** Set while a waiting thread has the receive role ({@link #awaitReceiving}): it receives and runs the timers. */
    private volatile boolean waiterReceives;
    /** When a waiting thread last gave the role up, or was offered it, in {@link #nanoTime()}'s clock. */
    private volatile long waiterReleasedNs = Long.MIN_VALUE / 2;
    /** Set while the progress thread parks with no time limit for a waiter that has the role: its release unparks. */
    private volatile boolean parkedForWaiter;
    /** Set while the progress thread waits on the link: a waiter that takes the role wakes it out of there. */
    private volatile boolean progressInLinkWait;
    /** Set when the device closes: waiters stop receiving, so that the link's close need not wait out their waits. */
    private volatile boolean stopping;
    /** The last wait of a waiter ended with work found: the next one spins first. Role holders only. */
    private boolean lastWaitFoundWork;
    /**
     * The last wait of a waiter slept in the link before it was satisfied: the next one most likely finds the link
     * empty too, so it waits first ({@code poll} returns at once if a datagram came meanwhile) rather than look with
     * a receive that finds nothing and then wait. Role holders only.
     */
    private boolean lastWaitSlept;
    /** The current wait spun its whole budget and went on to block ({@link WaitSpin#spun}). Role holders only. */
    private boolean spinRanOut;
    private final AgentRunner runner;

    /**
     * @param pollsInline  true if a thread polling an empty CQ receives (polling mode).
     * @param waitsInline  true if a thread waiting for an event or a completion receives (polling and waiting
     *                     modes): see {@link #awaitReceiving}.
     * @param waitSpinNs   how long a waiter whose last wait found work polls the link before it blocks; 0 never.
     * @param counters     the device's: the spins' counters.
     * @param idleStrategy what the progress thread does after an empty cycle; null for the default, which
     *                     waits on the link ({@link LinkWait}).
     */
    ProgressAgent(
        final Link link, final ReceivePath receivePath, final QpTable qpTable, final LongSupplier clock,
        final ProgressErrorLog errorLog, final boolean pollsInline, final boolean waitsInline, final long waitSpinNs,
        final Counters counters, final String threadName, final IdleStrategy idleStrategy)
    {
        this.link = link;
        this.receivePath = receivePath;
        this.qpTable = qpTable;
        this.clock = clock;
        this.errorLog = errorLog;
        this.pollsInline = pollsInline;
        this.waitsInline = waitsInline;
        this.waitSpin = new WaitSpin(waitSpinNs, counters);
        this.runner = new AgentRunner(idleStrategy != null ? idleStrategy : new LinkWait(), errorLog::onError, null, this);
        // the thread exists before it starts (and without starting, for a device driven by hand): memory handed
        // to the device is checked for access from it
        this.progressThread = Thread.ofPlatform().daemon().name(threadName).unstarted(runner);
    }

    void start()
    {
        progressThread.start();
    }

    private long nanoTime()
    {
        return clock.getAsLong();
    }

    /**
     * A transport owes work at the end of the batch being received: see {@link BatchEndWork}.
     */
    void batchEndOwed(final BatchEndWork work)
    {
        batchEnd.add(work);
    }

    /**
     * Hand what was queued to the network: one system call for a burst on a batching link.
     */
    void flushSends()
    {
        flushOwed = false;
        replyFlushOwed = false;
        link.flush();
    }

    /**
     * A thread posted work requests, whose packets the link holds. In polling mode, while a thread polls and the
     * progress thread's next cycle is near, they wait for the next poll, as a poll's coalesced ACKs do: a burst
     * of single posts between two polls then leaves in one system call (a full send queue flushes itself), and
     * a poster that stops polling has them sent by the progress thread within {@link #POLLER_ACTIVE_NS} of its
     * last poll. Otherwise they leave now.
     */
    void sendsPosted()
    {
        if (parkedForPoller && progressThreadNear())
        {
            flushOwed = true;
            return;
        }
        flushSends();
    }

    /**
     * A CQ armed for a completion event is polled: its consumer waits on a completion channel between polls
     * (ibv_req_notify_cq, poll, ibv_get_cq_event), so it is no busy poller and nobody receives while it waits
     * unless the progress thread does. End the poller's hold at once, and wake the progress thread if it is
     * parked for a poller, rather than leave a gap of up to {@link #POLLER_ACTIVE_NS} in which a datagram waits
     * for the hold to run out on every hop.
     */
    void pollerWaits()
    {
        if (!pollsInline)
        {
            return;
        }
        // as if the last busy poll were long over; no overflow, as 2 ms is far from the clock's ends. The next
        // busy poll reads the clock, whatever the count
        lastInlinePollNs = nanoTime() - 2 * POLLER_ACTIVE_NS;
        pollsSinceClock = CLOCK_EVERY_POLLS;
        if (flushOwed)
        {
            flushSends();
        }
        // read after the write above, as the progress thread writes the flag before it reads the poll's time
        if (parkedForPoller)
        {
            LockSupport.unpark(progressThread);
        }
    }

    /**
     * @return true if the progress thread leaves receiving to a poller now.
     */
    boolean defersToPoller()
    {
        return pollerActive(nanoTime());
    }

    /**
     * A CQ's poll begins, whether or not the CQ holds completions. In polling mode this marks a poller
     * active, so that the progress thread leaves receiving and the timers to it (a poller that finds
     * completions the progress thread produced would otherwise never look like one, and the two threads
     * would trade every packet); and it sends what an earlier poll left queued ({@link #progressInline}),
     * so that a poller that only polls still sends its ACKs at once. The poll's time is read on one poll in
     * {@value #CLOCK_EVERY_POLLS}.
     */
    void pollBegins()
    {
        // sends first: the datagrams a post left for this poll leave without waiting for the clock
        if (flushOwed)
        {
            flushSends();
        }
        if (pollsInline && ++pollsSinceClock >= CLOCK_EVERY_POLLS)
        {
            // the time stays a few polls old: never later than now, so the poller looks no more active, nor the
            // progress thread nearer (progressThreadNear), than they are, and a timer runs a few polls late
            pollsSinceClock = 0;
            lastInlinePollNs = nanoTime();
        }
    }

    /**
     * A transport armed a timer: wake the progress thread if it may be waiting past the deadline,
     * so a timer armed by a posting thread fires on time without the progress thread polling.
     *
     * @param deadlineNs the deadline, in {@link #nanoTime()}'s clock.
     */
    void timerArmed(final long deadlineNs)
    {
        // read after the deadline is written, as the thread publishes its wait's end before reading the
        // deadline: a thread that will wake before the deadline anyway costs no system call here
        if (timerDeadline.lower(deadlineNs) && deadlineNs < progressWaitEndNs)
        {
            if (waiterReceives)
            {
                // the waiter runs the timers: only its link wait needs shortening
                link.wakeup();
            }
            else
            {
                wakeProgressThread();
            }
        }
    }

    /**
     * Wake the progress thread from either of its waits: the link's (watching the socket) or the park
     * of polling mode ({@link Link#awaitReadableWhilePolled}).
     */
    private void wakeProgressThread()
    {
        link.wakeup();
        LockSupport.unpark(progressThread);
    }

    /**
     * Make the progress thread look at its timers now (a QP that entered ERR has receives to flush).
     */
    void wakeup()
    {
        timersRequested = true;
        wakeProgressThread();
    }

    /**
     * The progress thread's cycle, run by Agrona's {@link AgentRunner}: nothing thrown leaves it (see
     * {@link ProgressErrorLog}), so the idle strategy runs after a fault too and a fault that recurs on every
     * cycle cannot spin a core.
     */
    @Override
    public int doWork()
    {
        try
        {
            // while a thread polls (polling mode) or waits (polling and waiting modes) it receives, runs the timers
            // that fall due and sends what they queue: this thread keeps out of its way, and takes over when the
            // polls or waits stop
            final long now = nanoTime();
            return pollerActive(now) || waiterActive(now) ? 0 : dutyCycle();
        }
        catch (final Throwable ex)
        {
            // whatever it is, even an Error, the device keeps its thread
            errorLog.onError(ex);
            return 0;
        }
    }

    @Override
    public String roleName()
    {
        return progressThread.getName();
    }

    /**
     * One duty cycle: receive and handle up to a batch of datagrams, do the work they left owed (coalesced
     * ACKs, responses still owed: only the QPs that owe some), then run the QPs' timers if one is due or
     * {@link #wakeup} asked. The progress
     * thread calls it in a loop; a device built without a progress thread
     * ({@code SoftDevice.Builder.progressThread}) is driven by calling it, with an injected clock, so
     * timers fire exactly when a test advances time.
     *
     * @return datagrams handled, plus the batch-end work done, plus 1 if timers ran: 0 means there was nothing
     *         to do.
     */
    int dutyCycle()
    {
        if (!receiveLock.tryLock())
        {
            // a poller holds it (polling mode; no other thread takes it): that poller receives and runs the
            // timers that fall due, so this cycle has nothing to do, and the idle strategy parks as for any
            // active poller. Trying again at once would spin against a poller descheduled with the lock, on
            // the core it needs to finish.
            lastInlinePollNs = nanoTime();
            return 0;
        }
        try
        {
            // the batch's coalesced ACKs, and responses still owed from earlier batches, follow the batch
            final int received = receiveBatch(RECEIVE_BATCH) + batchEnd.run();
            final long now = nanoTime();
            if (timerDeadline.get() <= now || timersRequested)
            {
                // cleared before running: a wake-up during the run buys one more run, none is lost
                timersRequested = false;
                runTimers(now);
                return received + 1;
            }
            return received;
        }
        finally
        {
            // what the cycle's packets and timers queued (ACKs, responses, retransmissions) leaves in one
            // go, with anything a poll left owed
            flushSends();
            receiveLock.unlock();
            offerRoleToSeeker();
        }
    }

    /**
     * The default idle strategy: after an empty cycle, wait on the link for a datagram or a wake-up,
     * but no longer than until the next timer (and at most {@link #TIMER_WAIT_NS} with one armed, since
     * a transport may arm a shorter one without waking the thread). While a thread polls (polling mode),
     * park instead until it may have stopped: one wake-up per {@link #POLLER_ACTIVE_NS} at most, none per
     * packet.
     */
    private void awaitWork()
    {
        if (stopping)
        {
            // stop() wakes this thread, then closes the runner, which ends its loop after the cycle under way: a
            // wait begun in between would hold the close up for a whole idle wait (Link.IDLE_WAIT_NANOS)
            Thread.yield();
            return;
        }
        // "may wait long" until the wait is chosen: written before the deadline and lastInlinePollNs are read,
        // as a transport arming a timer and a poller write those before reading this, so that either this
        // thread sees what they wrote or they see it may wait long (and wake it, or flush themselves)
        progressWaitEndNs = Long.MAX_VALUE;
        final long next = timerDeadline.get();
        final long now = nanoTime();
        final long wait = next == Long.MAX_VALUE ? IDLE_WAIT_NS : Math.min(TIMER_WAIT_NS, Math.max(0, next - now));
        if (waiterActive(now))
        {
            parkForWaiter(now);
        }
        else if (pollerActive(now))
        {
            // nothing to do until the poller may have stopped, POLLER_ACTIVE_NS after its last poll
            final long brief = POLLER_ACTIVE_NS - (now - lastInlinePollNs);
            progressWaitEndNs = now + brief;
            parkedForPoller = true;
            // a poller that stopped (pollerWaits) after the look above either sees the flag and unparks this
            // thread, or wrote its time before this second look, which then sees it gone
            if (pollerActive(nanoTime()))
            {
                link.awaitReadableWhilePolled(brief);
            }
            parkedForPoller = false;
        }
        else
        {
            progressInLinkWait = true;
            // a waiter that took the role after the look above either sees the flag and wakes the link, or wrote
            // its own flag before this second look
            if (!waiterActive(now))
            {
                progressWaitEndNs = now + wait;
                link.awaitReadable(wait);
            }
            progressInLinkWait = false;
        }
        progressWaitEndNs = Long.MAX_VALUE;
    }

    /**
     * Waiting modes: a waiting thread has the role, or gave it up less than {@link #WAITER_GRACE_NS} ago. While it
     * has had it that long, park until it gives it up (it receives and runs the timers meanwhile: no wake-up here,
     * however long the application sleeps); within the grace after a release, park out the rest of it, so a thread
     * that waits again and again costs this one at most a wake-up per grace, none per message.
     */
    private void parkForWaiter(final long now)
    {
        final long sinceRelease = now - waiterReleasedNs;
        if (sinceRelease < WAITER_GRACE_NS)
        {
            LockSupport.parkNanos(WAITER_GRACE_NS - sinceRelease);
            return;
        }
        parkedForWaiter = true;
        // a waiter giving the role up after the look above either sees the flag and unparks this thread, or
        // cleared its own before this second look
        if (waiterReceives)
        {
            LockSupport.park();
        }
        parkedForWaiter = false;
    }

    /**
     * @return true in the waiting modes while a waiting thread has the receive role or gave it up less than
     *     {@link #WAITER_GRACE_NS} ago.
     */
    private boolean waiterActive(final long now)
    {
        return waitsInline && (waiterReceives || now - waiterReleasedNs < WAITER_GRACE_NS);
    }

    /**
     * The role was given up: a waiting thread that found it taken gets it next, and the progress thread stands
     * back for it as for a waiter that has just released it.
     */
    private void offerRoleToSeeker()
    {
        if (seekers.any())
        {
            waiterReleasedNs = nanoTime();
            seekers.offerOne();
        }
    }

    /**
     * See {@link WaitDriver#await}: in the waiting modes, the calling thread takes the receive role if
     * it is free and, until {@code wait} is satisfied, does the progress thread's work itself: receive a batch, run
     * the batch-end work and the timers that fall due, send what they queued, and wait on the link (at most until
     * the next timer, and {@link #IDLE_WAIT_NS} at a time, as the progress thread does) when the link is drained.
     * The progress thread meanwhile parks ({@link #parkForWaiter}).
     *
     * @param wait      what the thread waits for.
     * @param timeoutNs the longest wait; negative waits until satisfied.
     * @return {@link VerbsDevice#WAIT_SATISFIED}, {@link VerbsDevice#WAIT_TIMED_OUT} or
     *     {@link VerbsDevice#WAIT_ROLE_BUSY}.
     */
    int awaitReceiving(final WaitDriver.Wait wait, final long timeoutNs)
    {
        if (!waitsInline || stopping)
        {
            return WaitDriver.ROLE_BUSY;
        }
        if (!receiveLock.tryLock())
        {
            seekers.add(wait);
            // the holder may have given the role up between the try and the add, and offered it to nobody
            if (!receiveLock.tryLock())
            {
                return WaitDriver.ROLE_BUSY;
            }
            seekers.remove(wait);
        }
        waiterReceives = true;
        try
        {
            // read after the flag is written: the progress thread writes its own before it looks at this one
            if (progressInLinkWait)
            {
                link.wakeup();
            }
            return receiveUntil(wait, timeoutNs);
        }
        finally
        {
            progressWaitEndNs = Long.MAX_VALUE;
            waiterReleasedNs = nanoTime();
            waiterReceives = false;
            receiveLock.unlock();
            // a waiter that found the role taken gets it next; and the progress thread, if it sleeps with no time
            // limit, is woken to take the link over should nobody come back within the grace (an offered waiter
            // may find its wait over and not take the role)
            seekers.offerOne();
            if (parkedForWaiter)
            {
                LockSupport.unpark(progressThread);
            }
        }
    }

    /**
     * Lock held, as the waiting thread: the progress thread's cycle and idle wait, until {@code wait} is satisfied.
     * Spin, then block: where the last wait found work, the link is polled for the spin budget ({@link WaitSpin}) before the thread
     * blocks on it (a reply that comes within the budget costs no wake-up at all), as hadroNIO's dynamic mode does;
     * after a wait that found nothing (idle), it blocks at once, so an idle device spins nowhere.
     */
    private int receiveUntil(final WaitDriver.Wait wait, final long timeoutNs)
    {
        final long spinNs = waitSpin.begin(lastWaitFoundWork);
        spinRanOut = false;
        final long start = nanoTime();
        final int outcome = receiveUntil(wait, timeoutNs, spinNs, start);
        lastWaitFoundWork = outcome == WaitDriver.SATISFIED;
        if (spinNs > 0)
        {
            // a spin satisfied long after its budget was off the core meanwhile (the scheduler gave the core to
            // another thread, as it does a busy one at the end of its slice): the datagram waited for it, where a
            // blocked waiter would have been woken ahead of that thread. That spin did not pay
            waitSpin.spun(!spinRanOut && lastWaitFoundWork && nanoTime() - start <= SPIN_OVERRUN * spinNs);
        }
        return outcome;
    }

    private int receiveUntil(final WaitDriver.Wait wait, final long timeoutNs, final long spinNs, final long start)
    {
        final long deadline = timeoutNs < 0 || timeoutNs > Long.MAX_VALUE / 4 ? Long.MAX_VALUE : start + timeoutNs;
        final long spinEnd = start + Math.min(spinNs, deadline - start);
        // a thread that waits and replies in turn (a ping-pong, a request and its answer) finds the link empty when
        // it comes to wait, as its last wait did: the look a receive makes first is then a system call for nothing
        // (on a socket: a receive, then poll, then the receive that gets the datagram, where a blocking socket makes
        // one call). So after a wait that slept, the first look is the wait's own: poll, which returns at once if a
        // datagram came meanwhile. Not when spinning, which is for a reply that comes within the budget
        boolean look = !lastWaitSlept || spinNs > 0;
        lastWaitSlept = false;
        while (true)
        {
            if (!look)
            {
                look = true;
                // what the batch before left queued leaves before this thread sleeps, as after a look
                flushSends();
                final long now = nanoTime();
                if (now < deadline && timerDeadline.get() > now && !timersRequested && !wait.satisfied() &&
                    !stopping)
                {
                    awaitLink(wait, now, deadline);
                }
                continue;
            }
            int received = 0;
            try
            {
                received = receiveBatch(RECEIVE_BATCH);
                batchEnd.run();
                final long now = nanoTime();
                if (timerDeadline.get() <= now || timersRequested)
                {
                    timersRequested = false;
                    runTimers(now);
                }
            }
            catch (final Throwable ex)
            {
                // as on the progress thread: the device keeps its waiter, which then waits rather than spins
                errorLog.onError(ex);
                received = 0;
            }
            final boolean satisfied = wait.satisfied();
            // read after the role's flag was written: a progress thread still in the link's wait would not send
            // what is left owed within the grace, so it leaves now
            if (satisfied && received > 0 && !progressInLinkWait)
            {
                replyFlushOwed = true;
            }
            else
            {
                flushSends();
            }
            if (satisfied)
            {
                return WaitDriver.SATISFIED;
            }
            if (stopping || Thread.currentThread().isInterrupted())
            {
                // the caller's own wait sees the interrupt; a closing device's link must not wait for this one
                return WaitDriver.ROLE_BUSY;
            }
            if (received > 0 && !link.caughtUp())
            {
                continue;
            }
            final long now = nanoTime();
            if (now >= deadline)
            {
                return WaitDriver.TIMED_OUT;
            }
            if (now - spinEnd < 0)
            {
                Thread.onSpinWait();
                continue;
            }
            spinRanOut = spinNs > 0;
            awaitLink(wait, now, deadline);
        }
    }

    /**
     * Role held, as a waiting thread whose look found nothing: wait on the link, at most until the next timer or
     * the wait's deadline, and note whether it slept ({@link #lastWaitSlept}).
     */
    private void awaitLink(final WaitDriver.Wait wait, final long now, final long deadline)
    {
        final long next = timerDeadline.get();
        final long untilTimer = next == Long.MAX_VALUE ? IDLE_WAIT_NS : Math.min(TIMER_WAIT_NS, Math.max(0, next - now));
        final long waitNs = deadline == Long.MAX_VALUE ? untilTimer : Math.min(untilTimer, deadline - now);
        awaitProgressThreadOffLink();
        if (wait.satisfied())
        {
            // the progress thread, leaving the link's wait (now or since this thread took the role), may have taken
            // the one wake-up the link holds for both the kick that sent it out and a waker of this wait (an
            // eventfd's count, a flag): what the waker changed is looked at again, now that nobody else can take a
            // wake-up
            return;
        }
        progressWaitEndNs = now + waitNs;
        final long before = nanoTime();
        link.awaitReadable(waitNs);
        progressWaitEndNs = Long.MAX_VALUE;
        lastWaitSlept = nanoTime() - before >= SLEPT_NS;
    }

    /**
     * Role held, as a waiting thread: the progress thread may still be in the link's wait it was in when the role
     * was taken (woken, but not yet out). Two threads in one wait would share the wake-ups, and the progress
     * thread, which only parks once out, could take one meant for this thread: a lost wake-up. So this thread
     * waits on the link only once the other is off it, yielding to it meanwhile (it needs the core to leave),
     * and waking it again now and then in case a wake-up went astray. This happens when the role passes from the
     * progress thread to a waiter, not on every message.
     */
    private void awaitProgressThreadOffLink()
    {
        int spins = 0;
        while (progressInLinkWait && !stopping)
        {
            if ((++spins & 0xFF) == 1)
            {
                link.wakeup();
            }
            Thread.yield();
        }
    }

    /**
     * See {@link WaitDriver#stopSeeking}.
     */
    void stopSeeking(final WaitDriver.Wait wait)
    {
        seekers.remove(wait);
    }

    /**
     * See {@link WaitDriver#wakeReceiver}.
     */
    void wakeReceiver(final Thread receiver)
    {
        if (receiver != Thread.currentThread() && waiterReceives)
        {
            link.wakeup();
        }
    }

    /**
     * Lock held: receive and handle up to {@code max} datagrams waiting on the link, stopping early when the link
     * has handed out all it found ({@link Link#caughtUp}): a poller then returns with the completion, and the
     * cycle's ACKs leave, a system call sooner than if the link looked again only to find nothing.
     */
    private int receiveBatch(final int max)
    {
        int received = 0;
        while (received < max && link.receiveInPlace(rxBuffer, rxSegment, rxInfo))
        {
            received++;
            receivePath.onDatagram(rxInfo.data, rxInfo.dataOffset, rxInfo.dataLength, rxInfo, rxParser, rxPacket);
            if (link.caughtUp())
            {
                break;
            }
        }
        return received;
    }

    /**
     * @param now the clock.
     * @return true in polling mode while a thread polls a CQ of this device: one did within
     *     {@link #POLLER_ACTIVE_NS}.
     */
    private boolean pollerActive(final long now)
    {
        return pollsInline && now - lastInlinePollNs < POLLER_ACTIVE_NS;
    }

    /**
     * @return true if polling a CQ of this device also receives from the network (polling mode).
     */
    boolean pollsInline()
    {
        return pollsInline;
    }

    /**
     * @return true if a thread waiting for an event or a completion receives itself ({@link #awaitReceiving}).
     */
    boolean waitsInline()
    {
        return waitsInline;
    }

    /**
     * In polling mode, receive what the link holds on the calling thread, the one polling a CQ,
     * instead of waiting for the progress thread to wake: a busy-polling receiver then sees a
     * packet's completion without a thread hand-off. Does nothing if the progress thread (or
     * another poller) is receiving at the moment, and never blocks.
     *
     * @return datagrams handled.
     */
    int progressInline()
    {
        if (!pollsInline)
        {
            return 0;
        }
        if (!receiveLock.tryLock())
        {
            return 0;
        }
        int received = 0;
        int queued = 0;
        try
        {
            received = receiveBatch(INLINE_BATCH);
            // as the progress thread does after a batch: queue the ACKs the batch coalesced
            queued = received + batchEnd.run();
            // the poll's own time (pollBegins) tells whether a timer fell due: no clock read for an empty poll
            if (timerDeadline.get() <= lastInlinePollNs || timersRequested)
            {
                // the timers that fell due, which the progress thread leaves to an active poller
                timersRequested = false;
                runTimers(nanoTime());
                queued++;
            }
            return received;
        }
        catch (final Throwable ex)
        {
            errorLog.onError(ex);
            queued++;
            return 0;
        }
        finally
        {
            if (received > 0 && progressThreadNear())
            {
                // the poller is about to see these packets' completions and, in a ping-pong, to post
                // its reply: the ACKs wait for it, or for its next poll, or for the progress thread's
                // next cycle, which is near
                flushOwed = true;
            }
            else if (queued > 0)
            {
                flushSends();
            }
            // a poll that did nothing sends nothing: what the link holds is a waiter's ACKs left for the reply
            // (replyFlushOwed), and an event consumer polls its CQ before it replies. Sending them here, alone,
            // woke the peer for the ACK and again for the reply on every RC exchange
            receiveLock.unlock();
            offerRoleToSeeker();
        }
    }

    /**
     * The last poll's time stands in for the clock: it is no later than now, so the thread looks no nearer than
     * it is, and a busy poller's post or receive costs no clock read.
     *
     * @return true if the progress thread is in a wait that ends within {@link #POLLER_ACTIVE_NS}, so
     * that what a poll leaves queued goes out by then even if nobody polls again.
     */
    private boolean progressThreadNear()
    {
        final long end = progressWaitEndNs;
        return end != Long.MAX_VALUE && end - lastInlinePollNs <= POLLER_ACTIVE_NS;
    }

    /**
     * Lock held: run every QP's timers.
     *
     * @param now the clock.
     */
    private void runTimers(final long now)
    {
        timerDeadline.runBegins();
        long next = TimerDeadline.NONE;
        final TransportQp[] table = qpTable.snapshot();
        for (final TransportQp qp : table)
        {
            if (qp != null && qp.type() != QpType.UD)
            {
                next = Math.min(next, qp.transport().onTimer(now));
            }
        }
        timerDeadline.runEnded(next);
    }

    /**
     * @return the thread that receives packets and runs timers, for tests that measure it.
     */
    Thread progressThread()
    {
        return progressThread;
    }

    /**
     * Run {@code action} while no thread receives: a receiver reads each datagram where its link holds it
     * ({@link Link#receiveInPlace}), so the link's close, which frees that memory, must wait for the poller that
     * may be reading it. Receivers only try the lock, and never wait while they hold it.
     *
     * @param action what must not overlap a receive.
     */
    void whileNoneReceives(final Runnable action)
    {
        receiveLock.lock();
        try
        {
            action.run();
        }
        finally
        {
            receiveLock.unlock();
        }
    }

    /**
     * Stop the progress thread, waiting up to five seconds for its cycle to end.
     */
    void stop()
    {
        // waiters leave the role at their next look, and the link's wait ends for whichever thread is in it
        stopping = true;
        // out of its wait first: the runner then sees it stopped at the end of this cycle, not the next wait's
        wakeProgressThread();
        runner.close();
    }

    /**
     * The default idle strategy, as an Agrona one: {@link #awaitWork} after an empty cycle. A fault in the wait
     * is logged and the wait ends, so the runner's loop never sees it.
     */
    private final class LinkWait extends WaitingIdleStrategy
    {
        @Override
        public void idle()
        {
            try
            {
                awaitWork();
            }
            catch (final Throwable ex)
            {
                errorLog.onError(ex);
            }
        }

        @Override
        public String alias()
        {
            return "link";
        }
    }
}
