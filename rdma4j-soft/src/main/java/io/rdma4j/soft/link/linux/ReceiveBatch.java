package io.rdma4j.soft.link.linux;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.link.Ipv4;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static io.rdma4j.soft.link.linux.LinuxLibc.AF_INET;
import static io.rdma4j.soft.link.linux.LinuxLibc.CMSG_SPACE_INT;
import static io.rdma4j.soft.link.linux.LinuxLibc.IOVEC_BYTES;
import static io.rdma4j.soft.link.linux.LinuxLibc.MMSGHDR_BYTES;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_CONTROL;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_CONTROLLEN;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_DONTWAIT;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_FLAGS;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_IOV;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_IOVLEN;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_LEN;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_NAME;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_NAMELEN;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_TRUNC;
import static io.rdma4j.soft.link.linux.LinuxLibc.SOL_SOCKET;
import static io.rdma4j.soft.link.linux.LinuxLibc.SOL_UDP;
import static io.rdma4j.soft.link.linux.LinuxLibc.SO_RXQ_OVFL;
import static io.rdma4j.soft.link.linux.LinuxLibc.UDP_GRO;

/**
 * The receive side of a {@link LinuxUdpLink}: {@value #RX_SLOTS} slots of {@value #RX_SLOT_BYTES} bytes with
 * their {@code mmsghdr}, {@code iovec}, {@code sockaddr} and control arrays, allocated once; one
 * {@code recvmmsg} fills them, and {@link #deliver} hands them out a datagram at a time, splitting a GRO run
 * by its segment size and reading the source from the slot's {@code sockaddr} (a 256-entry cache maps an
 * IPv4 source to its {@link InetAddress}). Called under the link's receive lock only.
 */
final class ReceiveBatch
{
    /** Room for a slot's control messages: the GRO segment size and the kernel's drop count, an int each. */
    private static final int CONTROL_SLOT = 2 * CMSG_SPACE_INT;
    /**
     * Receives a look makes on a socket whose receives fail with a reported error: each error fails one receive,
     * and a new one can only come from a datagram sent meanwhile, so a few tries see a waiting datagram through.
     */
    private static final int MAX_TRIES = 4;
    /** Datagrams (or GRO runs) one {@code recvmmsg} may return. */
    static final int RX_SLOTS = 32;
    /** A slot holds the largest UDP payload, so that neither a datagram nor a GRO run is cut. */
    static final int RX_SLOT_BYTES = 65536;

    private static final int SOCKADDR_SLOT = 32;
    private static final int SOURCE_CACHE = 256;
    private static final ValueLayout.OfInt INT_BE =
        ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_BE =
        ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE =
        ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final int port;
    private final boolean groReceive;
    private final MemorySegment rxData;
    private final ByteBuffer rxDataView;
    private final MemorySegment rxMessages;
    private final MemorySegment rxNames;
    private final MemorySegment rxControl;
    private final InetAddress[] sourceCache = new InetAddress[SOURCE_CACHE];
    private final int[] sourceCacheIpv4 = new int[SOURCE_CACHE];
    private InetAddress lastIpv6Source;
    private long lastIpv6High;
    private long lastIpv6Low;
    private int rxCount;
    private int rxIndex;
    private int rxOffset;
    /** Where the current slot's run ends once its last segment, an ACK, went first; -1 otherwise. */
    private int rxSlotEnd = -1;
    private Endpoint rxEndpoint;
    private int nextEndpointIndex;
    /**
     * The last refill found nothing: the next asks for as many datagrams (or GRO runs) as the last burst brought,
     * and takes them as all there is. A busy poller, or a thread woken by a datagram, most often finds what one
     * peer's flush sent: one datagram in a UD ping-pong, an ACK and a SEND in an RC one. A recvmmsg for more pays
     * a failing receive in the kernel to learn that there is none, and one for fewer a second system call; behind
     * a backlog the call after it asks for a full batch.
     */
    private boolean lastEmpty;
    /** Datagrams the refills since the last empty one brought, up to a full batch. */
    private int burst;
    /** What {@link #burst} came to before the last empty refill: what the next refill after one asks for. */
    private int lastBurst = 1;
    /**
     * The last refill took all the socket held: it returned fewer datagrams than it asked for, or it was the look
     * that follows an empty one and brought what it asked for.
     */
    private boolean drainedAtRefill;
    /**
     * The device's counters once bound: udp_rcvd_pkts as the NIO link counts it, and this socket's own, which
     * only the receiving thread bumps ({@linkplain Counters#addOwned owned}: no atomic per datagram).
     */
    volatile Counters counters = new Counters();

    /**
     * @param arena      the link's arena, which outlives this.
     * @param port       the link's port: every datagram's destination port.
     * @param groReceive true if the sockets have {@code UDP_GRO} on: slots may hold runs.
     */
    ReceiveBatch(final Arena arena, final int port, final boolean groReceive)
    {
        this.port = port;
        this.groReceive = groReceive;
        rxData = arena.allocate((long)RX_SLOTS * RX_SLOT_BYTES, 64);
        rxDataView = rxData.asByteBuffer();
        rxMessages = arena.allocate((long)RX_SLOTS * MMSGHDR_BYTES, 8);
        rxNames = arena.allocate((long)RX_SLOTS * SOCKADDR_SLOT, 8);
        rxControl = arena.allocate((long)RX_SLOTS * CONTROL_SLOT, 8);
        final MemorySegment rxIovecs = arena.allocate((long)RX_SLOTS * IOVEC_BYTES, 8);
        for (int i = 0; i < RX_SLOTS; i++)
        {
            final long iovec = (long)i * IOVEC_BYTES;
            rxIovecs.set(ValueLayout.JAVA_LONG, iovec, rxData.address() + (long)i * RX_SLOT_BYTES);
            rxIovecs.set(ValueLayout.JAVA_LONG, iovec + 8, RX_SLOT_BYTES);
            final long message = (long)i * MMSGHDR_BYTES;
            rxMessages.set(ValueLayout.JAVA_LONG, message + MSG_NAME, rxNames.address() + (long)i * SOCKADDR_SLOT);
            rxMessages.set(ValueLayout.JAVA_LONG, message + MSG_IOV, rxIovecs.address() + iovec);
            rxMessages.set(ValueLayout.JAVA_LONG, message + MSG_IOVLEN, 1L);
            rxMessages.set(ValueLayout.JAVA_LONG, message + MSG_CONTROL,
                rxControl.address() + (long)i * CONTROL_SLOT);
        }
        resetSlots(RX_SLOTS);
    }

    /**
     * Give the first {@code count} slots their full room again: the kernel writes the name and control
     * lengths it used into each slot it fills, and into no other (a call that finds nothing writes none).
     */
    private void resetSlots(final int count)
    {
        for (int slot = 0; slot < count; slot++)
        {
            final long message = (long)slot * MMSGHDR_BYTES;
            rxMessages.set(ValueLayout.JAVA_INT, message + MSG_NAMELEN, SOCKADDR_SLOT);
            rxMessages.set(ValueLayout.JAVA_LONG, message + MSG_CONTROLLEN, CONTROL_SLOT);
        }
    }

    /**
     * @return true while datagrams of the last batch wait in the slots.
     */
    boolean buffered()
    {
        return rxIndex < rxCount;
    }

    /**
     * @return true when the slots are empty and the refill that filled them took all its socket held (see
     *         {@link io.rdma4j.soft.link.Link#caughtUp}).
     */
    boolean caughtUp()
    {
        return rxIndex >= rxCount && drainedAtRefill;
    }

    /**
     * A socket is being closed: the datagrams it gave, already in the slots, are still delivered, with its
     * destination.
     */
    void forget(final Endpoint endpoint)
    {
        if (rxEndpoint == endpoint)
        {
            rxEndpoint = new Endpoint(-1, endpoint.destination, null);
        }
    }

    long syscalls()
    {
        return counters.get(SoftCounter.UDP_RECV_SYSCALLS);
    }

    long datagrams()
    {
        return counters.get(SoftCounter.UDP_RCVD_PKTS);
    }

    long runs()
    {
        return counters.get(SoftCounter.UDP_GRO_RUNS);
    }

    long socketErrors()
    {
        return counters.get(SoftCounter.UDP_RECV_SOCKET_ERRORS);
    }

    long truncated()
    {
        return counters.get(SoftCounter.UDP_TRUNCATED_DROPS);
    }

    /**
     * Fill the slots from the next of the sockets that has datagrams, starting after the one that gave the
     * last batch.
     *
     * @param current the sockets, unicast first.
     * @return true if a batch came.
     */
    boolean refill(final Endpoint[] current)
    {
        // only the last batch's slots were written to: an empty poll, the busy-polling case, resets none
        resetSlots(rxCount);
        rxCount = 0;
        rxIndex = 0;
        rxOffset = 0;
        rxSlotEnd = -1;
        final int count = current.length;
        final int start = nextEndpointIndex < count ? nextEndpointIndex : 0;
        for (int i = 0; i < count; i++)
        {
            final int index = start + i < count ? start + i : start + i - count;
            final Endpoint endpoint = current[index];
            final int asked = lastEmpty ? lastBurst : RX_SLOTS;
            int received = receive(endpoint.fd, asked);
            for (int tries = 1; received < 0 && tries < MAX_TRIES && reportedError(); tries++)
            {
                // the failure reported an error and consumed it: what waits behind it comes now
                received = receive(endpoint.fd, asked);
            }
            if (received > 0)
            {
                drainedAtRefill = received < asked || lastEmpty;
                lastEmpty = false;
                // capped: a stream that never finds the socket empty must not overflow it
                burst = Math.min(burst + received, RX_SLOTS);
                counters.incrementOwned(SoftCounter.UDP_RECV_SYSCALLS);
                rxCount = received;
                rxEndpoint = endpoint;
                nextEndpointIndex = index + 1;
                countKernelDrops(endpoint, received);
                return true;
            }
        }
        if (burst > 0)
        {
            lastBurst = burst;
            burst = 0;
        }
        lastEmpty = true;
        drainedAtRefill = true;
        return false;
    }

    /** A look for up to {@code asked} datagrams (or GRO runs): see {@link #refill}. */
    private int receive(final int fd, final int asked)
    {
        return asked == 1 ? receiveOne(fd) : LinuxLibc.recvmmsg(fd, rxMessages, asked, MSG_DONTWAIT);
    }

    /**
     * A receive failed: was it an error the socket reported, rather than an empty socket (EAGAIN)? With
     * {@code IP_RECVERR} on (the link reads "port unreachable" from the error queue), an ICMP error answering any of
     * our datagrams fails the socket's next receive once, whether datagrams wait or not, as it fails the next send
     * ({@code SendBatch}). Taken for an empty socket, such a failure ended the batch: a device sending a long READ
     * to a closed port drew an error for almost every look, and read a datagram in seconds. Counted, then tried
     * again; a wrong errno (see {@link LinuxLibc#lastErrno}) costs a look or delays one datagram to the next batch.
     *
     * @return true if the receive should be tried again.
     */
    private boolean reportedError()
    {
        final int errno = LinuxLibc.lastErrno();
        if (errno == LinuxLibc.EAGAIN)
        {
            return false;
        }
        counters.incrementOwned(SoftCounter.UDP_RECV_SOCKET_ERRORS);
        return true;
    }

    /**
     * A look that asks for one datagram, a ping-pong's, by {@code recvmsg} into the first slot: a {@code recvmmsg}
     * for one wraps the same receive in the kernel's array handling. A send and a receive on loopback in C, ten
     * alternating runs each on 2026-11-27's EPYC VM (kernel 6.18): fastest 3.83 against 3.96 us, medians equal
     * within that VM's spread.
     *
     * @return 1 if a datagram came, its length in the slot's {@code msg_len} as {@code recvmmsg} writes it; else -1.
     */
    private int receiveOne(final int fd)
    {
        final long length = LinuxLibc.recvmsg(fd, rxMessages, MSG_DONTWAIT);
        if (length < 0)
        {
            return -1;
        }
        rxMessages.set(ValueLayout.JAVA_INT, MSG_LEN, (int)length);
        return 1;
    }

    /**
     * Copy the next datagram of the current slot into the buffer and describe it; or, with no buffer, describe
     * it where it lies in its slot ({@link DatagramInfo#data}): the slots change at the next refill only.
     *
     * @param buffer where the datagram goes, or null to leave it in its slot.
     * @return false if the slot's datagram was dropped (truncated); the caller moves on.
     */
    boolean deliver(final ByteBuffer buffer, final DatagramInfo info)
    {
        final int slot = rxIndex;
        final long message = (long)slot * MMSGHDR_BYTES;
        final int length = rxMessages.get(ValueLayout.JAVA_INT, message + MSG_LEN);
        final int flags = rxMessages.get(ValueLayout.JAVA_INT, message + MSG_FLAGS);
        if ((flags & MSG_TRUNC) != 0)
        {
            counters.incrementOwned(SoftCounter.UDP_TRUNCATED_DROPS);
            rxIndex++;
            return false;
        }
        final int segment = segmentSize(slot, length);
        final int end;
        if (rxSlotEnd >= 0)
        {
            end = rxSlotEnd;
        }
        else if (0 == rxOffset && segment < length && 0 != length % segment &&
            isAck(slot, length - length % segment))
        {
            // a run that ends in a shorter RC ACK: the ACK goes first. A peer's flush puts the ACK of our message
            // behind its reply so that both make one run (SendBatch), and GRO can join them from the wire too;
            // handed over in that order, the reply's completion could reach our application before the ACK
            // frees the send queue entry it needs for its next post.
            rxSlotEnd = length - length % segment;
            copyOut(slot, rxSlotEnd, length - rxSlotEnd, buffer, info);
            info.ipIdentificationGuess = rxSlotEnd / segment;
            return true;
        }
        else
        {
            end = length;
        }
        final int offset = rxOffset;
        final int datagramLength = Math.min(segment, end - offset);
        if (offset + datagramLength >= end)
        {
            if (offset > 0 || rxSlotEnd >= 0)
            {
                counters.incrementOwned(SoftCounter.UDP_GRO_RUNS);
            }
            rxIndex++;
            rxOffset = 0;
            rxSlotEnd = -1;
        }
        else
        {
            rxOffset = offset + datagramLength;
        }
        copyOut(slot, offset, datagramLength, buffer, info);
        // an empty datagram (a same-host wake-up) is a segment of size 0, and alone
        info.ipIdentificationGuess = 0 == segment ? 0 : offset / segment;
        return true;
    }

    private boolean isAck(final int slot, final int offset)
    {
        return (rxData.get(ValueLayout.JAVA_BYTE, (long)slot * RX_SLOT_BYTES + offset) & 0xFF) ==
            Opcode.RC_ACKNOWLEDGE.wire();
    }

    /** Copy one datagram of a slot into the buffer (or, without one, point at it in the slot) and describe it. */
    private void copyOut(
        final int slot, final int offset, final int datagramLength, final ByteBuffer buffer, final DatagramInfo info)
    {
        final int copied;
        if (null == buffer)
        {
            copied = datagramLength;
            info.data = rxData;
            info.dataOffset = (long)slot * RX_SLOT_BYTES + offset;
            info.dataLength = datagramLength;
        }
        else
        {
            copied = Math.min(datagramLength, buffer.capacity());
            buffer.clear();
            buffer.put(0, rxDataView, slot * RX_SLOT_BYTES + offset, copied);
            buffer.limit(copied);
        }
        describeSource(slot, info);
        final Endpoint endpoint = rxEndpoint;
        info.receivedAt(endpoint.destination, endpoint.destinationIpv4, endpoint.destinationIpv6High,
            endpoint.destinationIpv6Low, port);
        if (copied > 0)
        {
            // an empty datagram is a same-host wake-up, no RoCEv2 packet
            counters.incrementOnReceiveSide(SoftCounter.UDP_RCVD_PKTS);
        }
    }

    /** The slot's GRO segment size from its control message, or its whole length without one. */
    private int segmentSize(final int slot, final int length)
    {
        if (!groReceive)
        {
            return length;
        }
        final long size = controlInt(slot, SOL_UDP, UDP_GRO);
        return size > 0 ? (int)size : length;
    }

    /**
     * The kernel counts, per socket, the datagrams it dropped because the receive buffer was full, and with
     * {@code SO_RXQ_OVFL} on tells the count with each datagram it delivers after a drop: the batch's largest
     * count, less the last one seen, is what was lost since. The count is a u32 that wraps.
     */
    private void countKernelDrops(final Endpoint endpoint, final int received)
    {
        long newest = -1;
        for (int slot = 0; slot < received; slot++)
        {
            final long count = controlInt(slot, SOL_SOCKET, SO_RXQ_OVFL);
            if (count >= 0 && (newest < 0 || ((count - newest) & 0xFFFF_FFFFL) < 0x8000_0000L))
            {
                newest = count;
            }
        }
        if (newest >= 0)
        {
            final long dropped = (newest - (endpoint.kernelDrops & 0xFFFF_FFFFL)) & 0xFFFF_FFFFL;
            if (dropped > 0 && dropped < 0x8000_0000L)
            {
                counters.add(SoftCounter.UDP_RCVBUF_DROPS, dropped);
                endpoint.kernelDrops = (int)newest;
            }
        }
    }

    /**
     * @return the u32 value of the slot's control message of that level and type, or -1 if it has none.
     */
    private long controlInt(final int slot, final int level, final int type)
    {
        final long length = Math.min(rxMessages.get(ValueLayout.JAVA_LONG, (long)slot * MMSGHDR_BYTES + MSG_CONTROLLEN),
            CONTROL_SLOT);
        final long data = ControlMessages.find(rxControl, (long)slot * CONTROL_SLOT, length, level, type, Integer.BYTES);
        return data < 0 ? -1 : rxControl.get(ValueLayout.JAVA_INT, data) & 0xFFFF_FFFFL;
    }

    private void describeSource(final int slot, final DatagramInfo info)
    {
        final long name = (long)slot * SOCKADDR_SLOT;
        info.sourcePort = rxNames.get(SHORT_BE, name + 2) & 0xFFFF;
        if (rxNames.get(ValueLayout.JAVA_SHORT, name) == AF_INET)
        {
            final int ipv4 = rxNames.get(INT_BE, name + 4);
            final int index = (ipv4 ^ (ipv4 >>> 8)) & (SOURCE_CACHE - 1);
            InetAddress source = sourceCache[index];
            if (null == source || sourceCacheIpv4[index] != ipv4)
            {
                source = Ipv4.toAddress(ipv4);
                sourceCache[index] = source;
                sourceCacheIpv4[index] = ipv4;
            }
            info.source = source;
            info.sourceIpv4 = ipv4;
            info.sourceIpv6High = 0;
            info.sourceIpv6Low = 0;
            return;
        }
        // sin6_addr at 8: the halves big-endian, as Ipv6 and the receive checks hold them
        final long high = rxNames.get(LONG_BE, name + 8);
        final long low = rxNames.get(LONG_BE, name + 16);
        if (null == lastIpv6Source || high != lastIpv6High || low != lastIpv6Low)
        {
            final byte[] raw = rxNames.asSlice(name + 8, 16).toArray(ValueLayout.JAVA_BYTE);
            try
            {
                lastIpv6Source = InetAddress.getByAddress(raw);
            }
            catch (final UnknownHostException ex)
            {
                throw new IllegalStateException("16 bytes are always an IPv6 address", ex);
            }
            lastIpv6High = high;
            lastIpv6Low = low;
        }
        info.source = lastIpv6Source;
        info.sourceIpv4 = 0;
        info.sourceIpv6High = high;
        info.sourceIpv6Low = low;
    }
}
