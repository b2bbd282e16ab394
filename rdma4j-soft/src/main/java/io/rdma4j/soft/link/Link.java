package io.rdma4j.soft.link;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.wire.DeferredIcrc;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

/**
 * Moves whole RoCEv2 datagrams: the UDP payload, from the BTH to the ICRC, between devices.
 * <p>
 * A link belongs to one software device and is owned by its progress thread: {@link #receive}
 * and {@link #awaitReadable} are called by that thread only. {@link #send}, {@link #queue} and
 * {@link #flush} may be called by any thread (posting threads send inline), {@link #wakeup} by any
 * thread.
 * <p>
 * The sender's IPv4 header is produced by the IP stack (or by {@code MemoryLink}), so the
 * ICRC, which covers the IP and UDP headers, is computed by the caller from
 * {@link #localAddress()}, {@link #localPort()} and the destination, with the IP identification
 * field taken as {@link #ipIdentification()}.
 */
public interface Link extends AutoCloseable
{
    /** The UDP port RoCEv2 uses, IANA-assigned. */
    int ROCE_V2_PORT = 4791;

    /**
     * @return the address this link sends from and receives unicast on: the device's RoCEv2 GID.
     */
    InetAddress localAddress();

    /**
     * @return the UDP source port of every datagram this link sends (covered by the ICRC).
     */
    int localPort();

    /**
     * @return the IPv4 identification field of the datagrams this link sends, as covered by the
     * ICRC. Linux gives unconnected UDP sockets sending with DF set an identification of 0.
     */
    int ipIdentification();

    /**
     * Send one datagram, the buffer's bytes from position to limit, to {@code destination} on
     * {@link #ROCE_V2_PORT}. The buffer's position is left unchanged.
     *
     * @param datagram    the UDP payload: BTH, extension headers, payload, pad and ICRC.
     * @param destination a unicast address or an IPv4 multicast group.
     * @param hopLimit    the IP TTL (multicast TTL for groups), 1..255.
     * @return true if handed to the network, false if the link dropped it (full, closed or failed).
     */
    boolean send(ByteBuffer datagram, InetAddress destination, int hopLimit);

    /**
     * Queue one datagram for the next {@link #flush()}, which hands every queued datagram to the
     * network at once (one {@code sendmmsg} on Linux) instead of one system call each. The bytes
     * are taken before this returns, so the caller may reuse the buffer at once; the buffer's
     * position is left unchanged. The datagrams of one link leave in the order they were queued,
     * whichever thread queued or flushes them. A link that does not batch sends at once: the default.
     * <p>
     * Whoever queues owes a flush before it stops sending for a while: a posting thread at the end
     * of its {@code postSend}, the progress loop at the end of its duty cycle (and before it blocks).
     * A link may flush early, when its queue is full.
     *
     * @param datagram    the UDP payload: BTH, extension headers, payload, pad and ICRC.
     * @param destination a unicast address or an IPv4 multicast group.
     * @param hopLimit    the IP TTL (multicast TTL for groups), 1..255.
     * @return true if queued (or sent), false if the link dropped it (full, closed or failed). A
     *         datagram the network refuses at the flush is counted by the link, not reported here.
     */
    default boolean queue(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        return send(datagram, destination, hopLimit);
    }

    /**
     * As {@link #queue}, for a datagram built without its ICRC: the link has {@code icrc} compute it unless the
     * datagram goes where no ICRC is needed ({@link SameHostLink}'s inboxes). The default computes it and queues.
     *
     * @param icrc computes the datagram's ICRC into the caller's buffer; false if it cannot (then not sent).
     * @return true if queued (or sent), false if the link dropped it or the ICRC could not be computed.
     */
    default boolean queue(
        final ByteBuffer datagram, final InetAddress destination, final int hopLimit, final DeferredIcrc icrc)
    {
        return icrc.generate() && queue(datagram, destination, hopLimit);
    }

    /**
     * @return true if {@link #queueGathered} carries a payload from native memory without copying it.
     */
    default boolean gathers()
    {
        return false;
    }

    /**
     * Queue one datagram of three parts, for a sender that reads the payload in place (from registered
     * memory) instead of copying it into a packet buffer: the head (headers) and tail (pad and ICRC) are
     * taken before this returns, the payload is read when the datagram is flushed, so it must stay valid
     * and unchanged until the next {@link #flush}, which the caller owes (as for {@link #queue}).
     * <p>
     * The link keeps {@code payload} reachable until the flush, so memory the garbage collector frees (a
     * {@code ByteBuffer}'s, an automatic arena's) waits for it. Nothing can hold a shared arena open meanwhile,
     * so whoever registered the memory makes its arena's close call {@link #flush} before the memory is freed
     * (a close action); the link, for its part, refuses the datagram when the arena is already closing
     * ({@code udp_send_failures}), reading the arena's state only after the datagram is visible to such a
     * flush. Either the memory is sent while it is still there, or the datagram is not sent.
     *
     * @param head          the headers, position to limit; the position is left unchanged.
     * @param payload       native memory holding the payload.
     * @param payloadOffset where the payload starts in it.
     * @param payloadLength the payload's length.
     * @param tail          the pad and ICRC, position to limit; the position is left unchanged.
     * @param destination   a unicast address or an IPv4 multicast group.
     * @param hopLimit      the IP TTL, 1..255.
     * @return true if queued, false if the link dropped it.
     * @throws UnsupportedOperationException where {@link #gathers()} is false.
     */
    default boolean queueGathered(
        final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
        final ByteBuffer tail, final InetAddress destination, final int hopLimit)
    {
        throw new UnsupportedOperationException(this + " does not send payloads in place");
    }

    /**
     * As {@link #queueGathered}, for a datagram whose tail holds no ICRC yet: as {@link #queue(ByteBuffer,
     * InetAddress, int, DeferredIcrc)}, {@code icrc} writes it into the tail when the path needs it.
     *
     * @return true if queued, false if the link dropped it or the ICRC could not be computed.
     */
    default boolean queueGathered(
        final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
        final ByteBuffer tail, final InetAddress destination, final int hopLimit, final DeferredIcrc icrc)
    {
        return icrc.generate() &&
            queueGathered(head, payload, payloadOffset, payloadLength, tail, destination, hopLimit);
    }

    /**
     * Hand every datagram {@link #queue}d so far, by any thread, to the network. Cheap when nothing
     * is queued; any thread may call it.
     */
    default void flush()
    {
    }

    /**
     * Receive at most one datagram without blocking.
     *
     * @param buffer where the datagram is written, from position 0; position and limit are set
     *               to 0 and the datagram's length.
     * @param info   filled with the datagram's addresses when one is received.
     * @return true if a datagram was received.
     */
    boolean receive(ByteBuffer buffer, DatagramInfo info);

    /**
     * Receive at most one datagram without blocking, and leave it where the link holds it if it can:
     * {@code info}'s {@link DatagramInfo#data}, {@link DatagramInfo#dataOffset dataOffset} and
     * {@link DatagramInfo#dataLength dataLength} say where, valid until this link's next receive or its close.
     * A link whose datagrams are in memory of its own (a socket's receive slots) saves the copy into
     * {@code buffer} that {@link #receive} makes; the default makes it and points at {@code buffer}.
     *
     * @param buffer        where a datagram is copied if it is copied, as {@link #receive} does.
     * @param bufferSegment {@code buffer} as a segment, so that describing it allocates nothing.
     * @param info          filled with the datagram's addresses and place when one is received.
     * @return true if a datagram was received.
     */
    default boolean receiveInPlace(final ByteBuffer buffer, final MemorySegment bufferSegment, final DatagramInfo info)
    {
        if (!receive(buffer, info))
        {
            return false;
        }
        info.data = bufferSegment;
        info.dataOffset = 0;
        info.dataLength = buffer.limit();
        return true;
    }

    /**
     * Whether the datagrams {@link #receive} handed out since the link last looked at its sockets were all it
     * found there: one more receive now would most likely cost a system call only to find nothing. A receiver
     * that handles a datagram and stops here (its caller sees the completion, and its reply leaves) is a
     * system call sooner than one that looks again first; it looks again on its next cycle.
     *
     * @return true if the link found its sockets drained when it last looked; false when it cannot tell, the
     *         default, which has the receiver go on until {@link #receive} returns false.
     */
    default boolean caughtUp()
    {
        return false;
    }

    /**
     * The longest a receiver waits in {@link #awaitReadable} with no timer armed: whatever needs it sooner (a
     * datagram, a timer armed, a stop) wakes it, so this only bounds a wake-up gone astray, and sets the pace of
     * an idle receiver's own wake-ups. Each costs a sleeping core's wake-up: on 2026-12-02's 2-vCPU EPYC guest
     * half a millisecond of CPU, which at ten a second (100 ms) was most of an idle Netty server's CPU.
     */
    long IDLE_WAIT_NANOS = 1_000_000_000L;

    /**
     * Block until a datagram may be ready, {@link #wakeup()} is called, or the timeout expires.
     *
     * @param timeoutNanos the longest wait; 0 returns at once.
     */
    void awaitReadable(long timeoutNanos);

    /** Make a thread blocked in {@link #awaitReadable} return now. */
    void wakeup();

    /**
     * Join an IPv4 multicast group on this link's interface (a full-member join: the kernel
     * sends IGMP), so datagrams sent to it arrive here. Joining a joined group again is counted
     * and needs as many leaves.
     */
    void joinGroup(InetAddress group);

    /** Undo one {@link #joinGroup}. Leaving a group not joined is ignored. */
    void leaveGroup(InetAddress group);

    /**
     * @param peer a peer's address.
     * @return true if the link reaches that peer through a same-host path only processes of this user can
     *         write ({@link SameHostLink}'s owner-only inboxes), found now, so that what claims to come from
     *         it by UDP is not the peer's. Allocates; asked when a connected QP's address is set. False for
     *         every link without such a path.
     */
    default boolean sameHostPathTo(final InetAddress peer)
    {
        return false;
    }

    /**
     * @return true while the link receives through its own same-host inbox; false once it has none (never had
     *         one, or gave it up), when its same-host peers fall back to UDP.
     */
    default boolean sameHostPathOpen()
    {
        return false;
    }

    /**
     * Wait, when a thread polling the device receives meanwhile (polling mode): sleep for the time given
     * without watching for datagrams, since the poller takes them; a thread woken by each datagram would
     * only race the poller for it, a context switch per packet. The device unparks the waiting thread
     * when it needs it sooner ({@link java.util.concurrent.locks.LockSupport#unpark}); a link that
     * would otherwise ask its senders for a wake-up ({@link SameHostLink}) need not.
     *
     * @param timeoutNanos the longest wait; 0 returns at once.
     */
    default void awaitReadableWhilePolled(final long timeoutNanos)
    {
        if (timeoutNanos > 0)
        {
            LockSupport.parkNanos(timeoutNanos);
        }
    }

    /**
     * Count in the device's counters what the link does: the path each datagram takes, the files it
     * refuses. The engine calls it once, before any traffic; a link that counts nothing ignores it.
     *
     * @param counters the device's counters.
     */
    default void bindCounters(final Counters counters)
    {
    }

    /**
     * Be told of each address that answered one of this link's datagrams with "port unreachable" (ICMP):
     * no RoCEv2 device listens there. Called on the receiving thread; a link that cannot see ICMP errors
     * (the NIO socket, the in-memory network) never calls it.
     *
     * @param listener told each such address.
     */
    default void unreachableListener(final java.util.function.Consumer<InetAddress> listener)
    {
    }

    /**
     * Whether {@link #peerProcessGone} would say true of some peer this link knows: one look per peer, so that a
     * liveness check over many connections to a few processes asks per connection only when one is gone.
     *
     * @return true if a known peer's process is known to be gone.
     */
    default boolean anyPeerProcessGone()
    {
        return false;
    }

    /**
     * Whether the process that ran the device at a peer's address is known to have died: a link that talks to
     * the peer through a file of the peer's (a same-host inbox, which names its owner's pid) can tell; others
     * never know and say false. Allocates; for a liveness check about once a second, not the data path.
     *
     * @param peer the peer's address.
     * @return true only if the peer's process is known to be gone.
     */
    default boolean peerProcessGone(final InetAddress peer)
    {
        return false;
    }

    /**
     * @return datagrams this link dropped on purpose to simulate loss ({@link LossyLink}, {@code drop_injected} in
     * the device's counters); 0 for a link that injects none.
     */
    default long injectedDrops()
    {
        return 0;
    }

    /**
     * @return the socket that carries this link's datagrams, as {@code rdma4j.soft.socket} names it ({@code linux},
     * {@code nio}), or what carries them instead ({@code memory}); what a device reports, so that a benchmark
     * names the path it measured rather than the setting it was given ({@code auto} resolves per platform).
     */
    default String socket()
    {
        return getClass().getSimpleName();
    }

    /**
     * @return true if unicast datagrams to devices of other processes on this host go through shared memory
     * ({@link SameHostLink}), false if every datagram goes over {@link #socket()}.
     */
    default boolean sameHost()
    {
        return false;
    }

    @Override
    void close();
}
