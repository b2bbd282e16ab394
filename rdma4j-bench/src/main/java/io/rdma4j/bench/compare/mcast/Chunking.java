package io.rdma4j.bench.compare.mcast;

/**
 * How an unreliable system (raw UDP, plain UD) sends a message larger than its datagram: in equal datagrams,
 * each with the message's sequence and stamp, its index and the count; a 64-byte message is one datagram of
 * 64 bytes.
 */
final class Chunking
{
    /** Sequence, stamp, this datagram's index, their count. */
    static final int HEADER = 2 * Long.BYTES + 2 * Integer.BYTES;
    static final int INDEX_OFFSET = 2 * Long.BYTES;
    static final int COUNT_OFFSET = INDEX_OFFSET + Integer.BYTES;

    private final int chunks;
    private final int chunkLength;
    private final int payload;

    /**
     * @param size        the message length, {@link #HEADER} or more.
     * @param maxDatagram the largest datagram the system sends.
     */
    Chunking(final int size, final int maxDatagram)
    {
        if (size < HEADER || maxDatagram <= HEADER)
        {
            throw new IllegalArgumentException("message " + size + " B: " + HEADER + " B or more, in datagrams of " +
                "more than " + HEADER + " B (" + maxDatagram + ")");
        }
        payload = size - HEADER;
        final int capacity = maxDatagram - HEADER;
        chunks = Math.max(1, (payload + capacity - 1) / capacity);
        chunkLength = (payload + chunks - 1) / chunks;
    }

    /** @return datagrams per message. */
    int chunks()
    {
        return chunks;
    }

    /** @return where datagram {@code index}'s payload starts in the message, past its header. */
    int offset(final int index)
    {
        return HEADER + index * chunkLength;
    }

    /** @return datagram {@code index}'s payload bytes. */
    int length(final int index)
    {
        return Math.min(chunkLength, payload - index * chunkLength);
    }
}
