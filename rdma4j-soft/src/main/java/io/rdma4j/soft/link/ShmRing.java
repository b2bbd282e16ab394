package io.rdma4j.soft.link;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * A ring of datagrams in shared memory that many threads, of any process mapping it, write into and one
 * thread reads: the inbox of a device ({@link ShmInbox}). The shape is that of Agrona's
 * {@code ManyToOneRingBuffer}: a producer claims space by moving the tail with a compare-and-set, writes its
 * record and publishes it by storing the record's length last; the consumer reads records in order while
 * the length at its head is not 0, and zeroes what it consumed before it moves the head, so the space a
 * producer claims always reads 0 until it is published. A record that would run past the end of the buffer
 * is preceded by a padding record to the end.
 * <p>
 * Record (8-byte aligned): length (int, header + payload, unaligned; written last), type (int: data,
 * IPv6 data, either of them with the ICRC left out, or padding), the sender's IPv4 address (0 in an IPv6
 * record), UDP port and IP identification (ints), the payload length (int); an IPv6 record then has the
 * sender's 16-byte address (two big-endian longs, as {@link Ipv6} holds it); then the payload: a RoCEv2 UDP
 * payload, BTH to ICRC. A ring is of one family, its device's: the IPv4 records are those of the first format,
 * and a record of the other family is one no producer of ours writes.
 * <p>
 * Every other process of the same user can write this memory, so the consumer trusts nothing it reads:
 * a length, type or size that no producer of ours writes is reported as {@link #CORRUPT} and the caller
 * abandons the ring. Producers, likewise, read the head and tail of a ring another process owns and
 * refuse ({@link #CORRUPT}) positions that cannot be.
 */
final class ShmRing
{
    /** {@link #offer}: published. */
    static final int OK = 0;
    /** {@link #offer}: not enough free space (the consumer is behind, or gone). */
    static final int FULL = 1;
    /** {@link #offer} or {@link #poll}: positions or a record no producer of ours writes. */
    static final int CORRUPT = 2;
    /** {@link #poll}: nothing published at the head. */
    static final int EMPTY = 3;
    /**
     * {@link #offer}: the payload's arena closed before its bytes were copied, so the datagram is not the
     * sender's (nothing was published, or a record whose payload reads 0, which the receiver's ICRC drops).
     */
    static final int PAYLOAD_GONE = 4;

    /** Bytes of an IPv4 record's header. */
    static final int HEADER_BYTES = 24;
    /** Bytes of an IPv6 record's header: the IPv4 one and the sender's 16-byte address. */
    static final int HEADER_BYTES_IPV6 = HEADER_BYTES + 16;
    /** Offset of the tail (next position to claim) in the control block; a cache line of its own. */
    static final int TAIL_OFFSET = 0;
    /** Offset of the head (next position to read) in the control block; a cache line of its own. */
    static final int HEAD_OFFSET = 128;
    /** Bytes of the control block: tail and head on separate pairs of cache lines. */
    static final int CONTROL_BYTES = 256;

    private static final int ALIGNMENT = 8;
    /** Claims tried before an offer gives up as if the ring were full. */
    private static final int MAX_CLAIM_ATTEMPTS = 10_000;
    private static final int TYPE_DATA = 1;
    private static final int TYPE_PADDING = 2;
    private static final int TYPE_DATA_IPV6 = 3;
    /** Data records whose sender left the ICRC out ({@link #polledIcrcOmitted}), of either family. */
    private static final int TYPE_DATA_NO_ICRC = 4;
    private static final int TYPE_DATA_IPV6_NO_ICRC = 5;
    private static final int LENGTH_AT = 0;
    private static final int TYPE_AT = 4;
    private static final int SOURCE_ADDRESS_AT = 8;
    private static final int SOURCE_PORT_AT = 12;
    private static final int IP_ID_AT = 16;
    private static final int PAYLOAD_LENGTH_AT = 20;
    private static final int SOURCE_IPV6_HIGH_AT = 24;
    private static final int SOURCE_IPV6_LOW_AT = 32;

    /** What a consumed record is zeroed from; read, never written. */
    private static final byte[] ZEROES = new byte[4096];
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment control;
    private final MemorySegment data;
    /** The data as a buffer, for absolute bulk copies from and to the caller's buffers without a view each. */
    private final ByteBuffer dataBuffer;
    private final int capacity;
    private final int mask;
    /** The largest record the ring takes: an eighth of it, so one big record never blocks the ring for long. */
    private final int maxRecord;
    /** The records of this ring's family: their type (with the ICRC, and without it) and header bytes. */
    private final int dataType;
    private final int dataTypeNoIcrc;
    private final int headerBytes;
    /** The consumer's own copy of the head. */
    private long head;
    /**
     * A producer's last read of the head: a position the consumer has passed, so free space reckoned from it is
     * never more than there is. Offers read the shared head only when this leaves too little room, so the head's
     * cache line is not pulled from the consumer's core on every record (the consumer writes it on every one).
     * Racy between the producers of one process, which is harmless: any value it ever holds was the head once.
     */
    private volatile long headCache;

    /** The last polled record's sender address, port and IP identification. */
    private int polledSourceIpv4;
    private long polledSourceIpv6High;
    private long polledSourceIpv6Low;
    private int polledSourcePort;
    private int polledIpIdentification;
    private boolean polledIcrcOmitted;

    /**
     * @param control {@link #CONTROL_BYTES} of shared memory, 8-byte aligned.
     * @param data    the records' memory: a power of two of at least 4096 bytes.
     */
    ShmRing(final MemorySegment control, final MemorySegment data)
    {
        this(control, data, false);
    }

    /**
     * @param control {@link #CONTROL_BYTES} of shared memory, 8-byte aligned.
     * @param data    the records' memory: a power of two of at least 4096 bytes.
     * @param ipv6    true for the ring of an IPv6 device: its records carry 16-byte sender addresses.
     */
    ShmRing(final MemorySegment control, final MemorySegment data, final boolean ipv6)
    {
        final long size = data.byteSize();
        if (size < 4096 || size > (1 << 30) || Long.bitCount(size) != 1)
        {
            throw new IllegalArgumentException("a ring's data is a power of two of 4 KiB to 1 GiB, not " + size);
        }
        this.control = control;
        this.data = data;
        this.dataBuffer = data.asByteBuffer();
        this.capacity = (int)size;
        this.mask = capacity - 1;
        this.maxRecord = capacity / 8;
        this.dataType = ipv6 ? TYPE_DATA_IPV6 : TYPE_DATA;
        this.dataTypeNoIcrc = ipv6 ? TYPE_DATA_IPV6_NO_ICRC : TYPE_DATA_NO_ICRC;
        this.headerBytes = ipv6 ? HEADER_BYTES_IPV6 : HEADER_BYTES;
        this.head = (long)LONG.getVolatile(control, (long)HEAD_OFFSET);
        this.headCache = head;
    }

    /**
     * @return the bytes records can occupy.
     */
    int capacity()
    {
        return capacity;
    }

    /**
     * @return the largest payload one record carries.
     */
    int maxPayload()
    {
        return maxRecord - headerBytes;
    }

    /**
     * Publish one datagram. Any thread, of any process.
     *
     * @param payload     its bytes, position to limit; positions unchanged.
     * @param sourceIpv4  the sender's address.
     * @param sourcePort  the sender's port.
     * @param ipId        the IP identification the sender's ICRC covered.
     * @return {@link #OK}, {@link #FULL} or {@link #CORRUPT}.
     */
    int offer(final ByteBuffer payload, final int sourceIpv4, final int sourcePort, final int ipId)
    {
        return offer(payload, null, 0, 0, null, sourceIpv4, 0, 0, sourcePort, ipId, false);
    }

    /**
     * Publish one datagram held in up to three places, as a gathering link sends it: the head, a payload in
     * registered memory, the tail (pad and ICRC). Any thread, of any process. The payload is copied before
     * this returns.
     *
     * @param head          the datagram's first bytes, position to limit; position unchanged.
     * @param payload       the payload's memory, or null for none.
     * @param payloadOffset where in it the payload starts.
     * @param payloadLength its length.
     * @param end           the last bytes, position to limit, or null for none; position unchanged.
     * @param sourceIpv4    the sender's address, in a ring of IPv4 records.
     * @param sourceHigh    the first 8 bytes of the sender's address, in a ring of IPv6 records.
     * @param sourceLow     its last 8 bytes.
     * @param sourcePort    the sender's port.
     * @param ipId          the IP identification the sender's ICRC covered.
     * @param icrcOmitted   the datagram's ICRC is not computed (its field reads 0): the record says so, unless
     *                      its payload could not be copied ({@link #PAYLOAD_GONE}), so that the receiver's check
     *                      of the ICRC drops it.
     * @return {@link #OK}, {@link #FULL}, {@link #CORRUPT} or {@link #PAYLOAD_GONE}.
     */
    int offer(
        final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
        final ByteBuffer end, final int sourceIpv4, final long sourceHigh, final long sourceLow,
        final int sourcePort, final int ipId, final boolean icrcOmitted)
    {
        final int headLength = head.remaining();
        final int middleLength = null == payload ? 0 : payloadLength;
        final int tailLength = null == end ? 0 : end.remaining();
        final int length = headLength + middleLength + tailLength;
        final int recordLength = headerBytes + length;
        final int required = align(recordLength);
        if (length > maxPayload())
        {
            return FULL;
        }
        if (middleLength > 0 && !payload.scope().isAlive())
        {
            return PAYLOAD_GONE;
        }

        long tail;
        int index;
        int padding;
        int attempts = 0;
        while (true)
        {
            if (++attempts > MAX_CLAIM_ATTEMPTS)
            {
                // other producers keep winning (or a hostile one keeps moving the tail): a lost datagram
                return FULL;
            }
            tail = (long)LONG.getVolatile(control, (long)TAIL_OFFSET);
            index = (int)(tail & mask);
            final int toEnd = capacity - index;
            padding = required > toEnd ? toEnd : 0;
            // the cached head first: the consumer has passed it, so room it shows is there
            final long cachedUsed = tail - headCache;
            if (cachedUsed < 0 || capacity - cachedUsed < required + padding || (tail & (ALIGNMENT - 1)) != 0)
            {
                final long currentHead = (long)LONG.getVolatile(control, (long)HEAD_OFFSET);
                if ((long)LONG.getVolatile(control, (long)TAIL_OFFSET) != tail)
                {
                    // a producer claimed between the reads: the head read may be older than the tail, look again
                    continue;
                }
                // the tail held still across the head's read, so head <= tail <= head + capacity unless corrupt
                final long used = tail - currentHead;
                if (used < 0 || used > capacity || (tail & (ALIGNMENT - 1)) != 0)
                {
                    return CORRUPT;
                }
                if (currentHead > headCache)
                {
                    headCache = currentHead;
                }
                if (capacity - used < required + padding)
                {
                    return FULL;
                }
            }
            if (LONG.compareAndSet(control, (long)TAIL_OFFSET, tail, tail + required + padding))
            {
                break;
            }
        }

        if (padding != 0)
        {
            data.set(ValueLayout.JAVA_INT, index + TYPE_AT, TYPE_PADDING);
            INT.setRelease(data, (long)index + LENGTH_AT, padding);
            index = 0;
        }
        if (dataType == TYPE_DATA_IPV6)
        {
            data.set(ValueLayout.JAVA_LONG, index + SOURCE_IPV6_HIGH_AT, sourceHigh);
            data.set(ValueLayout.JAVA_LONG, index + SOURCE_IPV6_LOW_AT, sourceLow);
        }
        data.set(ValueLayout.JAVA_INT, index + SOURCE_ADDRESS_AT, dataType == TYPE_DATA_IPV6 ? 0 : sourceIpv4);
        data.set(ValueLayout.JAVA_INT, index + SOURCE_PORT_AT, sourcePort);
        data.set(ValueLayout.JAVA_INT, index + IP_ID_AT, ipId);
        data.set(ValueLayout.JAVA_INT, index + PAYLOAD_LENGTH_AT, length);
        final int start = index + headerBytes;
        dataBuffer.put(start, head, head.position(), headLength);
        boolean payloadGone = false;
        if (middleLength > 0)
        {
            try
            {
                MemorySegment.copy(payload, payloadOffset, data, (long)start + headLength, middleLength);
            }
            catch (final IllegalStateException closed)
            {
                // the payload's arena closed since the sender staged it (a copy is never half done: the close
                // waits for it). The space is claimed and must be published; its payload reads 0, which the
                // sender's ICRC does not cover, so the receiver drops it (icrc_err), and the sender hears that
                // its datagram is lost (a UC message must not complete as sent)
                payloadGone = true;
            }
        }
        if (tailLength > 0)
        {
            dataBuffer.put(start + headLength + middleLength, end, end.position(), tailLength);
        }
        // the type last but for the length, which publishes it: known once the payload's copy is
        data.set(ValueLayout.JAVA_INT, index + TYPE_AT, icrcOmitted && !payloadGone ? dataTypeNoIcrc : dataType);
        // release, not volatile: a full fence here waited for the lines the receiver reads to come back to this
        // core, on the path of every same-host send (an RC responder's ACK goes before its completion). The
        // sender reads the receiver's parked flag next, and that read may pass this store: the claim's CAS on
        // the tail, a full fence, keeps it after the claim, and a receiver about to wait looks at the tail
        // after setting its flag (SameHostLink.awaitReadable), so one of the two sees the other
        INT.setRelease(data, (long)index + LENGTH_AT, recordLength);
        return payloadGone ? PAYLOAD_GONE : OK;
    }

    /**
     * Take the next datagram. The consumer thread only.
     *
     * @param buffer where the payload goes, from position 0; position and limit are set to 0 and its length.
     * @return {@link #OK} (the sender's fields are then {@link #polledSourceIpv4()} and the others),
     *         {@link #EMPTY} or {@link #CORRUPT}.
     */
    int poll(final ByteBuffer buffer)
    {
        for (int records = 0; records < 2; records++)
        {
            final int index = (int)(head & mask);
            final int length = (int)INT.getVolatile(data, (long)index + LENGTH_AT);
            if (length == 0)
            {
                return EMPTY;
            }
            final int toEnd = capacity - index;
            final int type = data.get(ValueLayout.JAVA_INT, index + TYPE_AT);
            if (type == TYPE_PADDING)
            {
                if (length != toEnd || records > 0)
                {
                    return CORRUPT;
                }
                consume(index, toEnd);
                continue;
            }
            final int payloadLength = data.get(ValueLayout.JAVA_INT, index + PAYLOAD_LENGTH_AT);
            // a record of the other family, or one too short for its own header, is none of ours
            if ((type != dataType && type != dataTypeNoIcrc) || length < headerBytes || length > toEnd ||
                length > maxRecord || payloadLength != length - headerBytes || payloadLength > buffer.capacity())
            {
                return CORRUPT;
            }
            if (dataType == TYPE_DATA_IPV6)
            {
                polledSourceIpv6High = data.get(ValueLayout.JAVA_LONG, index + SOURCE_IPV6_HIGH_AT);
                polledSourceIpv6Low = data.get(ValueLayout.JAVA_LONG, index + SOURCE_IPV6_LOW_AT);
            }
            polledSourceIpv4 = data.get(ValueLayout.JAVA_INT, index + SOURCE_ADDRESS_AT);
            polledSourcePort = data.get(ValueLayout.JAVA_INT, index + SOURCE_PORT_AT);
            polledIpIdentification = data.get(ValueLayout.JAVA_INT, index + IP_ID_AT);
            polledIcrcOmitted = type == dataTypeNoIcrc;
            buffer.clear();
            buffer.put(0, dataBuffer, index + headerBytes, payloadLength);
            buffer.limit(payloadLength);
            consume(index, align(length));
            return OK;
        }
        // two padding records in a row: no producer of ours writes that
        return CORRUPT;
    }

    /**
     * @return true if a record is published at the head (consumer thread; a full fence orders it after a
     *         store of the caller's, the parked flag).
     */
    boolean hasRecord()
    {
        return 0 != (int)INT.getVolatile(data, (long)(int)(head & mask) + LENGTH_AT);
    }

    /**
     * @return true if a producer has claimed space the consumer has not read: with {@link #poll} giving
     *         {@link #EMPTY}, a record still being written (or one whose writer died while writing it). A
     *         consumer about to wait asks this after setting its parked flag: a producer whose claim it does
     *         not see reads the flag after the claim, and one whose record it sees claimed may publish without
     *         reading the flag in time (records are published by a release store).
     */
    boolean claimedBeyondHead()
    {
        return (long)LONG.getVolatile(control, (long)TAIL_OFFSET) != head;
    }

    /**
     * @return the consumer's position: bytes consumed since the ring was made.
     */
    long head()
    {
        return head;
    }

    int polledSourceIpv4()
    {
        return polledSourceIpv4;
    }

    long polledSourceIpv6High()
    {
        return polledSourceIpv6High;
    }

    long polledSourceIpv6Low()
    {
        return polledSourceIpv6Low;
    }

    int polledSourcePort()
    {
        return polledSourcePort;
    }

    int polledIpIdentification()
    {
        return polledIpIdentification;
    }

    /**
     * @return true if the last polled record's sender left its ICRC out (the field reads 0): a record of this
     *         owner-only ring, which a CRC would protect from nothing.
     */
    boolean polledIcrcOmitted()
    {
        return polledIcrcOmitted;
    }

    /** Zero a consumed record (so the space reads 0 when claimed again), then hand the space back. */
    private void consume(final int index, final int bytes)
    {
        // zeroes copied in, a block at a time: one checked copy for a record of up to 4 KiB, where a checked store
        // a word cost more; not a fill of a slice, which some compilations left allocated (40 bytes a record).
        // Its length word reads 0 again before the head moves past it
        for (int done = 0; done < bytes; done += ZEROES.length)
        {
            MemorySegment.copy(ZEROES, 0, data, ValueLayout.JAVA_BYTE, (long)index + done,
                Math.min(ZEROES.length, bytes - done));
        }
        head += bytes;
        LONG.setRelease(control, (long)HEAD_OFFSET, head);
    }

    private static int align(final int length)
    {
        return (length + ALIGNMENT - 1) & -ALIGNMENT;
    }
}
