package io.rdma4j.soft.link.linux;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.wire.Icrc;
import io.rdma4j.soft.wire.Opcode;

import org.agrona.collections.Object2ObjectHashMap;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;

import static io.rdma4j.soft.link.linux.LinuxLibc.AF_INET;
import static io.rdma4j.soft.link.linux.LinuxLibc.CMSG_HEADER_BYTES;
import static io.rdma4j.soft.link.linux.LinuxLibc.CMSG_SPACE_INT;
import static io.rdma4j.soft.link.linux.LinuxLibc.EINVAL;
import static io.rdma4j.soft.link.linux.LinuxLibc.EINTR;
import static io.rdma4j.soft.link.linux.LinuxLibc.EIO;
import static io.rdma4j.soft.link.linux.LinuxLibc.EOPNOTSUPP;
import static io.rdma4j.soft.link.linux.LinuxLibc.IOVEC_BYTES;
import static io.rdma4j.soft.link.linux.LinuxLibc.MMSGHDR_BYTES;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_CONTROL;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_CONTROLLEN;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_FLAGS;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_IOV;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_IOVLEN;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_NAME;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_NAMELEN;
import static io.rdma4j.soft.link.linux.LinuxLibc.SOL_UDP;
import static io.rdma4j.soft.link.linux.LinuxLibc.UDP_SEGMENT;

/**
 * The send side of a {@link LinuxUdpLink}: {@value #TX_SLOTS} slots of native memory with their
 * {@code mmsghdr}, {@code iovec}, {@code sockaddr} and control arrays, allocated once; queued datagrams and
 * their flush in one {@code sendmmsg}, runs to one destination as {@code UDP_SEGMENT} messages with each
 * segment's ICRC moved to the identification the kernel gives it. Every method but the counters' is called
 * under the link's send lock.
 */
final class SendBatch
{
    /** Datagrams one flush may carry; a full queue flushes. */
    static final int TX_SLOTS = 64;
    /** iovecs a datagram takes: its head (or the whole of a copied one), a payload sent in place, its tail. */
    static final int IOVECS_PER_SLOT = 3;
    /** The largest datagram that is queued; a larger one is sent on its own from a scratch slot. */
    static final int TX_SLOT_BYTES = 8192;
    /** Segments per {@code UDP_SEGMENT} message: the kernel's UDP_MAX_SEGMENTS before 6.x raised it. */
    static final int MAX_GSO_SEGMENTS = 64;
    /** The largest UDP payload of one IPv4 datagram, and so of a GSO message. */
    static final int MAX_GSO_BYTES = 65507;

    private static final int SOCKADDR_SLOT = 32;
    private static final int SCRATCH_BYTES = 65536;
    private static final int MAX_CACHED_DESTINATIONS = 64;
    /** The most sends of one datagram that an earlier datagram's ICMP errors may fail (sendAloneOrIcmp). */
    private static final int ICMP_ERROR_TRIES = 8;

    private final Arena arena;
    private final int family;
    private final int port;
    private final int fd;
    private final int ipIdentification;
    private final MemorySegment capture;
    private final MemorySegment option;
    private final MemorySegment txData;
    private final ByteBuffer txDataView;
    private final MemorySegment txIovecs;
    private final MemorySegment txMessages;
    /** {@link #txMessages} from each message on: the arrays a partial {@code sendmmsg} resumes from. */
    private final MemorySegment[] txMessagesFrom = new MemorySegment[TX_SLOTS];
    private final MemorySegment txNames;
    private final MemorySegment txControl;
    private final MemorySegment txScratch;
    private final ByteBuffer txScratchView;
    /** A datagram's whole length, as GSO runs compare them. */
    private final int[] txLengths = new int[TX_SLOTS];
    /** Bytes at the start of a slot: a copied datagram, or a gathered one's headers. */
    private final int[] txHeadBytes = new int[TX_SLOTS];
    /** A gathered datagram's pad and ICRC, after its headers in the slot; 0 for a copied one. */
    private final int[] txTailBytes = new int[TX_SLOTS];
    /** A gathered datagram's payload: its native address and length; 0 for a copied one. */
    private final long[] txPayloadAddress = new long[TX_SLOTS];
    private final int[] txPayloadLength = new int[TX_SLOTS];
    /**
     * A gathered datagram's payload segment, held from its queueing to its flush; null for a copied one. The
     * kernel reads the payload by its raw address, which keeps nothing alive: a segment whose memory the garbage
     * collector frees (a direct or mapped {@code ByteBuffer}'s, whose scope takes no close action, or an automatic
     * arena's) must stay reachable until then. A shared arena's close is not held off by this; its close action
     * flushes instead ({@link #queueGathered}).
     */
    private final MemorySegment[] txPayloadSegment = new MemorySegment[TX_SLOTS];
    private final int[] txNameLengths = new int[TX_SLOTS];
    private final Object[] txDestinations = new Object[TX_SLOTS];
    private final boolean[] txMulticast = new boolean[TX_SLOTS];
    /** What was XORed into each slot's ICRC for the identification GSO gives its segment (0: nothing). */
    private final int[] txIcrcChange = new int[TX_SLOTS];
    private final int[] renumbering = new int[MAX_GSO_SEGMENTS];
    private final int[] runFirst = new int[TX_SLOTS];
    private final int[] runLength = new int[TX_SLOTS];
    /** Open addressing, no entry object per destination (Agrona's); reached only when the last one differs. */
    private final Object2ObjectHashMap<InetAddress, MemorySegment> sockaddrByDestination =
        new Object2ObjectHashMap<>();
    /**
     * The destination of the previous send and its socket address: a QP or an address handle hands the same
     * InetAddress object for every packet, so a stream or a ping-pong finds it by one reference comparison.
     */
    private InetAddress lastDestination;
    private MemorySegment lastSockaddr;
    private volatile int count;
    private boolean gsoSend;
    /**
     * Runs to a multicast group go with {@code UDP_SEGMENT} too. The kernel loops a copy of the run back to each
     * member socket of this host, whole: a member with {@code UDP_GRO} takes it as one run, and the kernel cuts
     * it into datagrams for one without. Only where the sockets have {@code UDP_GRO} (Linux 5.0), as older
     * kernels would hand such a member the whole run as one datagram; and a refusal of a multicast run turns
     * off this alone, as the group's route may lack what the unicast one has.
     */
    private boolean gsoMulticast;
    private int multicastTtl = -1;
    /**
     * The device's counters once bound: udp_sent_pkts as the NIO link counts it, and this socket's own. Those
     * bumped under the send lock are {@linkplain Counters#addOwned owned} (no atomic per datagram or syscall, as
     * when they were volatile fields here); failures, which may be counted outside the lock, are atomic.
     */
    volatile Counters counters = new Counters();

    /**
     * @param arena            the link's arena, which outlives this.
     * @param family           AF_INET or AF_INET6.
     * @param port             the destination UDP port.
     * @param fd               the socket to send on.
     * @param ipIdentification the identification the socket sends with (0 with DF), -1 if unknown.
     * @param segmentation     true to send runs with {@code UDP_SEGMENT}.
     * @param groupSegmentation true to send runs to multicast groups with it too.
     */
    SendBatch(final Arena arena, final int family, final int port, final int fd, final int ipIdentification,
        final boolean segmentation, final boolean groupSegmentation)
    {
        this.arena = arena;
        this.family = family;
        this.port = port;
        this.fd = fd;
        this.ipIdentification = ipIdentification;
        this.gsoSend = segmentation;
        this.gsoMulticast = segmentation && groupSegmentation;
        capture = LinuxLibc.newCapture(arena);
        option = arena.allocate(64, 8);
        txData = arena.allocate((long)TX_SLOTS * TX_SLOT_BYTES, 64);
        txDataView = txData.asByteBuffer();
        txIovecs = arena.allocate((long)TX_SLOTS * IOVECS_PER_SLOT * IOVEC_BYTES, 8);
        txMessages = arena.allocate((long)TX_SLOTS * MMSGHDR_BYTES, 8);
        for (int i = 0; i < TX_SLOTS; i++)
        {
            txMessagesFrom[i] = txMessages.asSlice((long)i * MMSGHDR_BYTES);
        }
        txNames = arena.allocate((long)TX_SLOTS * SOCKADDR_SLOT, 8);
        txControl = arena.allocate((long)TX_SLOTS * CMSG_SPACE_INT, 8);
        txScratch = arena.allocate(SCRATCH_BYTES, 64);
        txScratchView = txScratch.asByteBuffer();
        for (int i = 0; i < TX_SLOTS; i++)
        {
            final long control = (long)i * CMSG_SPACE_INT;
            // a UDP_SEGMENT message: cmsg_len = CMSG_LEN(sizeof(uint16_t)), SOL_UDP, UDP_SEGMENT
            txControl.set(ValueLayout.JAVA_LONG, control, CMSG_HEADER_BYTES + 2);
            txControl.set(ValueLayout.JAVA_INT, control + 8, SOL_UDP);
            txControl.set(ValueLayout.JAVA_INT, control + 12, UDP_SEGMENT);
        }
    }

    /**
     * @return true if nothing is queued; a racy read, which is enough: each queueing thread flushes its own.
     */
    boolean isEmpty()
    {
        return 0 == count;
    }

    /** Count a datagram that could not be queued or sent. */
    void countFailure()
    {
        counters.increment(SoftCounter.UDP_SEND_FAILURES);
    }

    long failures()
    {
        return counters.get(SoftCounter.UDP_SEND_FAILURES);
    }

    long syscalls()
    {
        return counters.get(SoftCounter.UDP_SEND_SYSCALLS);
    }

    long datagrams()
    {
        return counters.get(SoftCounter.UDP_SENT_PKTS);
    }

    long gsoMessages()
    {
        return counters.get(SoftCounter.UDP_GSO_MSGS);
    }

    long gathered()
    {
        return counters.get(SoftCounter.UDP_GATHERED_PKTS);
    }

    boolean segments()
    {
        return gsoSend;
    }

    /** Copy one datagram into the next slot, flushing first if the queue is full. */
    boolean queue(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        final int slot = reserveSlot(destination, hopLimit);
        if (slot < 0)
        {
            return false;
        }
        final int length = datagram.remaining();
        txDataView.put(slot * TX_SLOT_BYTES, datagram, datagram.position(), length);
        txHeadBytes[slot] = length;
        txTailBytes[slot] = 0;
        txPayloadAddress[slot] = 0;
        txPayloadLength[slot] = 0;
        txPayloadSegment[slot] = null;
        txLengths[slot] = length;
        setIovecs(slot);
        count = slot + 1;
        return true;
    }

    /** Head and tail into the next slot, the payload referenced where it lies. */
    boolean queueGathered(
        final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
        final ByteBuffer tail, final InetAddress destination, final int hopLimit)
    {
        final int slot = reserveSlot(destination, hopLimit);
        if (slot < 0)
        {
            return false;
        }
        final int headLength = head.remaining();
        final int tailLength = tail.remaining();
        txDataView.put(slot * TX_SLOT_BYTES, head, head.position(), headLength);
        txDataView.put(slot * TX_SLOT_BYTES + headLength, tail, tail.position(), tailLength);
        txHeadBytes[slot] = headLength;
        txTailBytes[slot] = tailLength;
        txPayloadAddress[slot] = payload.address() + payloadOffset;
        txPayloadLength[slot] = payloadLength;
        txPayloadSegment[slot] = payload;
        txLengths[slot] = headLength + payloadLength + tailLength;
        setIovecs(slot);
        count = slot + 1;
        // only the kernel reads the address, and holding the segment (above) keeps its memory from the garbage
        // collector but cannot hold a shared arena open: the queued count is
        // published before the arena's state is read, and the arena's close, which sets its state before its
        // close actions run, has an action (the device's, at regMr) that looks at the count and then flushes
        // under the send lock before the memory is freed. One of the two sees the other: the memory is sent
        // while it is still there, or the datagram is not sent at all
        VarHandle.fullFence();
        if (!payload.scope().isAlive())
        {
            count = slot;
            txPayloadSegment[slot] = null;
            counters.increment(SoftCounter.UDP_SEND_FAILURES);
            return false;
        }
        counters.incrementOwned(SoftCounter.UDP_GATHERED_PKTS);
        return true;
    }

    /**
     * Take the next slot for a datagram to {@code destination}, flushing first if the queue is
     * full or a multicast datagram needs another TTL; set its address.
     *
     * @return the slot, or -1 if the datagram cannot be sent (counted).
     */
    private int reserveSlot(final InetAddress destination, final int hopLimit)
    {
        final MemorySegment sockaddr = sockaddr(destination);
        if (null == sockaddr)
        {
            counters.increment(SoftCounter.UDP_SEND_FAILURES);
            return -1;
        }
        final boolean multicast = destination.isMulticastAddress();
        if (multicast && hopLimit != multicastTtl)
        {
            // the TTL is the socket's: what was queued under the old one leaves first
            flush();
            final int level = AF_INET == family ? LinuxLibc.IPPROTO_IP : LinuxLibc.IPPROTO_IPV6;
            final int name = AF_INET == family ? LinuxLibc.IP_MULTICAST_TTL : LinuxLibc.IPV6_MULTICAST_HOPS;
            if (!SocketOptions.tryInt(capture, option, fd, level, name, hopLimit))
            {
                counters.increment(SoftCounter.UDP_SEND_FAILURES);
                return -1;
            }
            multicastTtl = hopLimit;
        }
        if (count == TX_SLOTS)
        {
            flush();
        }
        final int slot = count;
        txIcrcChange[slot] = 0;
        MemorySegment.copy(sockaddr, 0, txNames, (long)slot * SOCKADDR_SLOT, sockaddr.byteSize());
        txNameLengths[slot] = (int)sockaddr.byteSize();
        txDestinations[slot] = destination;
        txMulticast[slot] = multicast;
        return slot;
    }

    /** A slot's three iovecs: its head (or whole datagram), the payload in place, its tail. */
    private void setIovecs(final int slot)
    {
        final long iovec = (long)slot * IOVECS_PER_SLOT * IOVEC_BYTES;
        final long data = txData.address() + (long)slot * TX_SLOT_BYTES;
        txIovecs.set(ValueLayout.JAVA_LONG, iovec, data);
        txIovecs.set(ValueLayout.JAVA_LONG, iovec + 8, txHeadBytes[slot]);
        txIovecs.set(ValueLayout.JAVA_LONG, iovec + 16, txPayloadAddress[slot]);
        txIovecs.set(ValueLayout.JAVA_LONG, iovec + 24, txPayloadLength[slot]);
        txIovecs.set(ValueLayout.JAVA_LONG, iovec + 32, 0 == txTailBytes[slot] ? 0L : data + txHeadBytes[slot]);
        txIovecs.set(ValueLayout.JAVA_LONG, iovec + 40, txTailBytes[slot]);
    }

    /**
     * Hand every queued datagram to the kernel. Consecutive datagrams to one unicast
     * destination, of one size but a shorter last, become one {@code UDP_SEGMENT} message; the messages go
     * in one {@code sendmmsg} (or more, if the kernel takes part of the array).
     */
    void flush()
    {
        final int queued = count;
        if (0 == queued)
        {
            return;
        }
        final int messages = groupRuns(queued);
        for (int m = 0; m < messages; m++)
        {
            final int first = runFirst[m];
            final int segments = runLength[m];
            final long message = (long)m * MMSGHDR_BYTES;
            txMessages.set(ValueLayout.JAVA_LONG, message + MSG_NAME, txNames.address() + (long)first * SOCKADDR_SLOT);
            txMessages.set(ValueLayout.JAVA_INT, message + MSG_NAMELEN, txNameLengths[first]);
            txMessages.set(ValueLayout.JAVA_LONG, message + MSG_IOV,
                txIovecs.address() + (long)first * IOVECS_PER_SLOT * IOVEC_BYTES);
            txMessages.set(ValueLayout.JAVA_LONG, message + MSG_IOVLEN, (long)segments * IOVECS_PER_SLOT);
            if (segments > 1)
            {
                renumberIcrcs(first, segments);
                final long control = (long)m * CMSG_SPACE_INT;
                txControl.set(ValueLayout.JAVA_SHORT, control + CMSG_HEADER_BYTES, (short)txLengths[first]);
                txMessages.set(ValueLayout.JAVA_LONG, message + MSG_CONTROL, txControl.address() + control);
                txMessages.set(ValueLayout.JAVA_LONG, message + MSG_CONTROLLEN, CMSG_SPACE_INT);
            }
            else
            {
                txMessages.set(ValueLayout.JAVA_LONG, message + MSG_CONTROL, 0L);
                txMessages.set(ValueLayout.JAVA_LONG, message + MSG_CONTROLLEN, 0L);
            }
            txMessages.set(ValueLayout.JAVA_INT, message + MSG_FLAGS, 0);
        }

        int next = 0;
        boolean gsoRefused = false;
        while (next < messages)
        {
            // one message, the usual flush of a ping-pong (a datagram, or a reply and its ACK as one run), goes by
            // sendmsg, without sendmmsg's array handling around it (as ReceiveBatch's look for one)
            final int sent = messages - next == 1 ? (LinuxLibc.sendmsg(fd, txMessagesFrom[next], 0) >= 0 ? 1 : -1)
                : LinuxLibc.sendmmsg(fd, txMessagesFrom[next], messages - next, 0);
            counters.incrementOwned(SoftCounter.UDP_SEND_SYSCALLS);
            if (sent > 0)
            {
                countSent(next, next + sent);
                next += sent;
                continue;
            }
            // once more alone, errno captured: a pending ICMP error, or the segmentation refused?
            if (sendAloneOrIcmp(txMessagesFrom[next]) >= 0)
            {
                countSent(next, next + 1);
                next++;
                continue;
            }
            final int errno = LinuxLibc.errno(capture);
            if (runLength[next] > 1 && (EINVAL == errno || EIO == errno || EOPNOTSUPP == errno))
            {
                // the kernel or the route has no UDP segmentation offload: from now on one datagram a
                // message (to groups only, if a group's run was refused), starting with this run
                if (!txMulticast[runFirst[next]])
                {
                    gsoSend = false;
                }
                gsoMulticast = false;
                gsoRefused = true;
                break;
            }
            // a refused datagram is a counted drop, as on a wire (EAGAIN with a full buffer, EMSGSIZE ...)
            counters.add(SoftCounter.UDP_SEND_FAILURES, runLength[next]);
            next++;
        }
        if (gsoRefused)
        {
            final int firstUnsent = runFirst[next];
            for (int slot = firstUnsent; slot < queued; slot++)
            {
                // each goes alone now, with identification 0 again
                changeIcrc(slot, txIcrcChange[slot]);
                txIcrcChange[slot] = 0;
            }
            compact(firstUnsent, queued);
            flush();
            return;
        }
        count = 0;
        // the kernel has read every payload: the segments may go
        for (int slot = 0; slot < queued; slot++)
        {
            txPayloadSegment[slot] = null;
        }
    }

    /**
     * The kernel numbers the segments of one {@code UDP_SEGMENT} send: a run sent with identification 0 leaves
     * as datagrams with identification 0, 1, 2 ... (seen with tcpdump behind a veth that segments in software).
     * The ICRC covers the identification, so segment k's ICRC is moved from identification 0 to k.
     */
    private void renumberIcrcs(final int first, final int segments)
    {
        if (0 != ipIdentification || AF_INET != family)
        {
            return;
        }
        // every segment but the last has the first's length: one factor for them all
        final int equal = txLengths[first + segments - 1] == txLengths[first] ? segments : segments - 1;
        Icrc.identificationChanges(txLengths[first], 1, equal - 1, renumbering);
        for (int k = 1; k < segments; k++)
        {
            final int slot = first + k;
            final int change = k < equal ? renumbering[k - 1] : Icrc.identificationChange(txLengths[slot], k);
            changeIcrc(slot, change);
            txIcrcChange[slot] = change;
        }
    }

    private void changeIcrc(final int slot, final int change)
    {
        if (0 != change && txLengths[slot] >= Icrc.MIN_LENGTH)
        {
            // the ICRC ends the slot's bytes: the copied datagram's, or the tail after the head
            final long at = (long)slot * TX_SLOT_BYTES + txHeadBytes[slot] + txTailBytes[slot] - Icrc.LENGTH;
            txData.set(Icrc.LAYOUT, at, txData.get(Icrc.LAYOUT, at) ^ change);
        }
    }

    private void countSent(final int fromMessage, final int toMessage)
    {
        for (int m = fromMessage; m < toMessage; m++)
        {
            counters.addOwned(SoftCounter.UDP_SENT_PKTS, runLength[m]);
            if (runLength[m] > 1)
            {
                counters.incrementOwned(SoftCounter.UDP_GSO_MSGS);
            }
        }
    }

    /** Move the slots from {@code from} to {@code count} to the front of the queue. */
    private void compact(final int from, final int queued)
    {
        final int left = queued - from;
        for (int i = 0; i < left; i++)
        {
            final int source = from + i;
            MemorySegment.copy(txData, (long)source * TX_SLOT_BYTES, txData, (long)i * TX_SLOT_BYTES,
                txHeadBytes[source] + txTailBytes[source]);
            MemorySegment.copy(txNames, (long)source * SOCKADDR_SLOT, txNames, (long)i * SOCKADDR_SLOT, SOCKADDR_SLOT);
            txLengths[i] = txLengths[source];
            txNameLengths[i] = txNameLengths[source];
            txDestinations[i] = txDestinations[source];
            txMulticast[i] = txMulticast[source];
            txIcrcChange[i] = 0;
            txHeadBytes[i] = txHeadBytes[source];
            txTailBytes[i] = txTailBytes[source];
            txPayloadAddress[i] = txPayloadAddress[source];
            txPayloadLength[i] = txPayloadLength[source];
            txPayloadSegment[i] = txPayloadSegment[source];
            setIovecs(i);
        }
        for (int i = left; i < queued; i++)
        {
            txPayloadSegment[i] = null;
        }
        count = left;
    }

    /** Split the queue into messages; return how many. */
    private int groupRuns(final int queued)
    {
        int messages = 0;
        int i = 0;
        while (i < queued)
        {
            int run = 1;
            if (txMulticast[i] ? gsoMulticast : gsoSend)
            {
                if (ackBeforeLongerRequest(i, queued))
                {
                    // an RC ping-pong's flush: the ACK of the peer's message, then our reply. Behind the reply, the
                    // ACK is the shorter last segment of a run, so both leave in one message and the peer's GRO
                    // hands them over in one receive: a second datagram through the kernel costs both sides about
                    // as much as the first. Acknowledgements and requests are separate PSN streams, so their order
                    // is free; only the ACK moves, past one request.
                    swapSlots(i, i + 1);
                }
                final int size = txLengths[i];
                int bytes = size;
                while (i + run < queued && run < MAX_GSO_SEGMENTS && txDestinations[i + run] == txDestinations[i] &&
                    txLengths[i + run] <= size && bytes + txLengths[i + run] <= MAX_GSO_BYTES)
                {
                    bytes += txLengths[i + run];
                    run++;
                    if (txLengths[i + run - 1] < size)
                    {
                        // a shorter datagram ends a run: every segment but the last is gso_size long
                        break;
                    }
                }
            }
            runFirst[messages] = i;
            runLength[messages] = run;
            messages++;
            i += run;
        }
        return messages;
    }

    /**
     * @return true if slot {@code i} is an RC ACK and slot {@code i + 1} a longer datagram to the same loopback
     *         destination that is not one. Only on loopback does the run reach the peer's socket whole, so that
     *         an rdma4j peer's receive hands the ACK over first ({@code ReceiveBatch}); a run to another host is
     *         cut into datagrams on the way, and a peer such as rxe could then complete our reply before the ACK.
     */
    private boolean ackBeforeLongerRequest(final int i, final int queued)
    {
        return i + 1 < queued && txDestinations[i + 1] == txDestinations[i] && txLengths[i + 1] > txLengths[i] &&
            isAck(i) && !isAck(i + 1) && ((InetAddress)txDestinations[i]).isLoopbackAddress();
    }

    private boolean isAck(final int slot)
    {
        return txHeadBytes[slot] > 0 &&
            (txData.get(ValueLayout.JAVA_BYTE, (long)slot * TX_SLOT_BYTES) & 0xFF) == Opcode.RC_ACKNOWLEDGE.wire();
    }

    /** Exchange two queued datagrams, their bytes, address and description; their ICRCs are not yet renumbered. */
    private void swapSlots(final int a, final int b)
    {
        final int aBytes = txHeadBytes[a] + txTailBytes[a];
        final int bBytes = txHeadBytes[b] + txTailBytes[b];
        MemorySegment.copy(txData, (long)a * TX_SLOT_BYTES, txScratch, 0, aBytes);
        MemorySegment.copy(txData, (long)b * TX_SLOT_BYTES, txData, (long)a * TX_SLOT_BYTES, bBytes);
        MemorySegment.copy(txScratch, 0, txData, (long)b * TX_SLOT_BYTES, aBytes);
        MemorySegment.copy(txNames, (long)a * SOCKADDR_SLOT, txScratch, 0, SOCKADDR_SLOT);
        MemorySegment.copy(txNames, (long)b * SOCKADDR_SLOT, txNames, (long)a * SOCKADDR_SLOT, SOCKADDR_SLOT);
        MemorySegment.copy(txScratch, 0, txNames, (long)b * SOCKADDR_SLOT, SOCKADDR_SLOT);
        swap(txLengths, a, b);
        swap(txHeadBytes, a, b);
        swap(txTailBytes, a, b);
        swap(txPayloadLength, a, b);
        swap(txNameLengths, a, b);
        swap(txIcrcChange, a, b);
        final long payload = txPayloadAddress[a];
        txPayloadAddress[a] = txPayloadAddress[b];
        txPayloadAddress[b] = payload;
        final MemorySegment payloadSegment = txPayloadSegment[a];
        txPayloadSegment[a] = txPayloadSegment[b];
        txPayloadSegment[b] = payloadSegment;
        final Object destination = txDestinations[a];
        txDestinations[a] = txDestinations[b];
        txDestinations[b] = destination;
        final boolean multicast = txMulticast[a];
        txMulticast[a] = txMulticast[b];
        txMulticast[b] = multicast;
        setIovecs(a);
        setIovecs(b);
    }

    private static void swap(final int[] values, final int a, final int b)
    {
        final int value = values[a];
        values[a] = values[b];
        values[b] = value;
    }

    /** A datagram too long for a slot, sent on its own from the scratch slot. */
    boolean sendLarge(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        final MemorySegment sockaddr = sockaddr(destination);
        if (null == sockaddr)
        {
            counters.increment(SoftCounter.UDP_SEND_FAILURES);
            return false;
        }
        final int length = datagram.remaining();
        txScratchView.put(0, datagram, datagram.position(), length);
        if (destination.isMulticastAddress() && hopLimit != multicastTtl)
        {
            final int name = AF_INET == family ? LinuxLibc.IP_MULTICAST_TTL : LinuxLibc.IPV6_MULTICAST_HOPS;
            if (!SocketOptions.tryInt(capture, option, fd, AF_INET == family ? LinuxLibc.IPPROTO_IP : LinuxLibc.IPPROTO_IPV6, name, hopLimit))
            {
                counters.increment(SoftCounter.UDP_SEND_FAILURES);
                return false;
            }
            multicastTtl = hopLimit;
        }
        // message 0 and the iovecs of slot 0 are free: the queue was flushed before
        final long message = 0;
        MemorySegment.copy(sockaddr, 0, txNames, 0, sockaddr.byteSize());
        txIovecs.set(ValueLayout.JAVA_LONG, 0, txScratch.address());
        txIovecs.set(ValueLayout.JAVA_LONG, 8, length);
        txMessages.set(ValueLayout.JAVA_LONG, message + MSG_NAME, txNames.address());
        txMessages.set(ValueLayout.JAVA_INT, message + MSG_NAMELEN, (int)sockaddr.byteSize());
        txMessages.set(ValueLayout.JAVA_LONG, message + MSG_IOV, txIovecs.address());
        txMessages.set(ValueLayout.JAVA_LONG, message + MSG_IOVLEN, 1L);
        txMessages.set(ValueLayout.JAVA_LONG, message + MSG_CONTROL, 0L);
        txMessages.set(ValueLayout.JAVA_LONG, message + MSG_CONTROLLEN, 0L);
        txMessages.set(ValueLayout.JAVA_INT, message + MSG_FLAGS, 0);
        // first without errno, as a flush's first try: the capturing call slices its state segment on every call,
        // which a wake-up a round trip did not always compile away (40 bytes a wake-up). A failure goes again with
        // errno captured, as a flush's does
        long sent = LinuxLibc.sendmsg(fd, txMessages, 0);
        counters.incrementOwned(SoftCounter.UDP_SEND_SYSCALLS);
        while (sent < 0)
        {
            sent = sendAloneOrIcmp(txMessages);
            if (sent < 0 && LinuxLibc.errno(capture) != EINTR)
            {
                break;
            }
        }
        setIovecs(0);
        if (sent < 0)
        {
            counters.increment(SoftCounter.UDP_SEND_FAILURES);
            return false;
        }
        if (length > 0)
        {
            // an empty datagram is a same-host wake-up, no RoCEv2 packet
            counters.incrementOwned(SoftCounter.UDP_SENT_PKTS);
        }
        return true;
    }

    /**
     * {@code sendmsg} with errno captured, and again while it fails with an ICMP error, up to
     * {@value #ICMP_ERROR_TRIES} tries: with {@code IP_RECVERR} on (the link reads "port unreachable" from the
     * error queue) the kernel also reports an ICMP error that answered an earlier datagram, to any destination, by
     * failing the socket's next send. That send's datagram is not the one refused: it goes again. Once is not
     * always enough: while the receiving thread reads the error queue, each entry it takes sets the socket's error
     * again from the entry behind it, so a send that met one error can meet the next one at once. The bound keeps
     * a stream of ICMP errors from holding the sender.
     *
     * @return what the last {@code sendmsg} returned.
     */
    private long sendAloneOrIcmp(final MemorySegment message)
    {
        long sent = LinuxLibc.sendmsg(capture, fd, message, 0);
        counters.incrementOwned(SoftCounter.UDP_SEND_SYSCALLS);
        for (int tries = 1; sent < 0 && tries < ICMP_ERROR_TRIES && isIcmpError(LinuxLibc.errno(capture)); tries++)
        {
            sent = LinuxLibc.sendmsg(capture, fd, message, 0);
            counters.incrementOwned(SoftCounter.UDP_SEND_SYSCALLS);
        }
        return sent;
    }

    private static boolean isIcmpError(final int errno)
    {
        return errno == LinuxLibc.ECONNREFUSED || errno == LinuxLibc.EHOSTUNREACH || errno == LinuxLibc.ENETUNREACH ||
            errno == LinuxLibc.EHOSTDOWN;
    }

    /** The destination's socket address, cached by identity; null for a foreign family. */
    private MemorySegment sockaddr(final InetAddress destination)
    {
        if (destination == lastDestination)
        {
            return lastSockaddr;
        }
        MemorySegment sockaddr = sockaddrByDestination.get(destination);
        if (null != sockaddr)
        {
            lastDestination = destination;
            lastSockaddr = sockaddr;
            return sockaddr;
        }
        if ((destination instanceof Inet4Address) != (AF_INET == family))
        {
            return null;
        }
        final Arena owner = sockaddrByDestination.size() < MAX_CACHED_DESTINATIONS ? arena : Arena.ofAuto();
        sockaddr = SocketAddresses.encode(owner, destination, port);
        if (owner == arena)
        {
            sockaddrByDestination.put(destination, sockaddr);
            lastDestination = destination;
            lastSockaddr = sockaddr;
        }
        return sockaddr;
    }
}
