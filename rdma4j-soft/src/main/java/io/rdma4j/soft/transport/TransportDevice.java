package io.rdma4j.soft.transport;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.resource.MrTable;
import io.rdma4j.soft.resource.SoftAh;
import io.rdma4j.soft.wire.DeferredIcrc;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.verbs.AsyncEvent;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Mtu;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;

/**
 * The device as its transports see it, and all they may ask of it: send a packet (addressed as the device
 * addresses its packets), look up a memory region, arm a timer, ask for end-of-batch work, raise an async
 * event, count. The engine above implements it; a transport never holds the engine itself, so what the
 * data path depends on is this page.
 */
public interface TransportDevice
{
    /**
     * @return the device's counters.
     */
    Counters counters();

    /**
     * @return the device's clock, in nanoseconds: the one every deadline is in.
     */
    long nanoTime();

    /**
     * @return the port's active MTU.
     */
    Mtu activeMtu();

    /**
     * @param peer a connected QP's peer, when its address is set.
     * @return true if the device's link reaches the peer through a same-host path only this user's processes
     *         can write (an owner-only inbox), so that UDP datagrams claiming to be the peer's are dropped.
     *         Allocates.
     */
    boolean sameHostPathTo(Gid peer);

    /**
     * @return GID index 0: the device's IP address.
     */
    Gid gid();

    /**
     * @return RDMA READs and atomics a responder may hold resources for (max_qp_rd_atom).
     */
    int maxQpRdAtom();

    /**
     * @return the device's memory regions by key.
     */
    MrTable mrTable();

    /**
     * @return true if the link can send a payload from registered memory in place, between a head and a tail
     *         it copies ({@link #queueGathered}); IPv4 only.
     */
    boolean gathers();

    /**
     * Set the addressing of a packet this device sends: from its address and port to {@code destination} on the
     * same port, in the device's IP family.
     *
     * @param spec        the packet's description.
     * @param destination the destination's GID; null stands for the zero GID.
     * @return {@code spec}.
     */
    PacketInfo network(PacketInfo spec, Gid destination);

    /**
     * Queue a datagram for the link's next flush, counting it.
     *
     * @param datagram    the bytes, position to limit; copied before this returns.
     * @param destination where.
     * @param hopLimit    the TTL.
     * @return true if the link took it.
     */
    boolean queue(ByteBuffer datagram, InetAddress destination, int hopLimit);

    /**
     * As {@link #queue(ByteBuffer, InetAddress, int)}, for a datagram built without its ICRC: {@code icrc}
     * computes it where the path needs it (see {@link DeferredIcrc}).
     *
     * @return true if the link took it.
     */
    boolean queue(ByteBuffer datagram, InetAddress destination, int hopLimit, DeferredIcrc icrc);

    /**
     * Queue a datagram whose payload the link reads in place, counting it.
     *
     * @return true if the link took it.
     */
    boolean queueGathered(
        ByteBuffer head, MemorySegment payload, long payloadOffset, int payloadLength, ByteBuffer tail,
        InetAddress destination, int hopLimit);

    /**
     * As {@link #queueGathered(ByteBuffer, MemorySegment, long, int, ByteBuffer, InetAddress, int)}, for a tail
     * without the ICRC yet: {@code icrc} writes it there where the path needs it.
     *
     * @return true if the link took it.
     */
    boolean queueGathered(
        ByteBuffer head, MemorySegment payload, long payloadOffset, int payloadLength, ByteBuffer tail,
        InetAddress destination, int hopLimit, DeferredIcrc icrc);

    /**
     * Hand a multicast packet this device just sent to its own members of the group, through the receive path
     * every packet takes: the IP stack's copy of it is dropped as our own echo.
     *
     * @param packet the packet as sent, ICRC included, from offset 0.
     * @param length its length.
     * @param group  the group it was sent to.
     */
    void loopbackMulticast(MemorySegment packet, int length, SoftAh group);

    /**
     * A transport armed a timer: the device runs its {@link QpTransport#onTimer} by the deadline.
     *
     * @param deadlineNs the deadline, in {@link #nanoTime()}'s clock.
     */
    void timerArmed(long deadlineNs);

    /**
     * A transport has work for the end of the batch of packets being received (a coalesced ACK, responses
     * owed): the device calls its {@link BatchEndWork#onBatchEnd} once the batch is handled. Called on the
     * receiving thread only.
     *
     * @param work what to call.
     */
    void batchEndOwed(BatchEndWork work);

    /**
     * Make the device run every QP's timers now (a QP that entered ERR has a held receive to flush).
     */
    void wakeup();

    /**
     * @param event an event for the context's async event queue.
     */
    void postAsyncEvent(AsyncEvent event);

    /**
     * @return how long an RC QP in RTS may hear nothing from its peer before it probes it ({@code Keepalive}); 0
     *         for never, the default.
     */
    default long keepaliveIdleNs()
    {
        return 0;
    }
}
