package io.rdma4j.soft.transport;

import io.rdma4j.soft.SoftCounter;
import io.rdma4j.soft.SoftEngine;
import io.rdma4j.soft.SoftQp;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.PacketBuilder;
import io.rdma4j.soft.wire.PacketInfo;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One role's room to build and send packets to the QP's connected peer: a direct buffer, the
 * reused packet description and a builder. The requester has one (used under the send lock) and
 * the responder has one (used on the progress thread), so the two never share a buffer.
 */
final class PacketOut
{
    private static final int ROOM = 8192;

    private final SoftQp qp;
    private final SoftEngine engine;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(ROOM);
    private final MemorySegment segment = MemorySegment.ofBuffer(buffer);
    private final PacketInfo spec = new PacketInfo();
    private final PacketBuilder builder = new PacketBuilder();

    PacketOut(final SoftQp qp)
    {
        this.qp = qp;
        this.engine = qp.engine();
    }

    /**
     * Start a packet to the peer: addressing, opcode, destination QP and PSN set, the rest zero.
     *
     * @param opcode the opcode.
     * @param psn    the PSN.
     * @return the description, for the caller to fill the extension headers.
     */
    PacketInfo begin(final Opcode opcode, final int psn)
    {
        final Link link = engine.link();
        return spec.clear()
            .opcode(opcode)
            .destQp(qp.destQpNum())
            .psn(psn & Psn.MASK)
            .network(engine.localIpv4(), link.localPort(), qp.destinationIpv4(), Link.ROCE_V2_PORT,
                link.ipIdentification());
    }

    /**
     * @return where the payload goes in the buffer: right after the headers of the begun opcode.
     */
    MemorySegment segment()
    {
        return segment;
    }

    /**
     * @return the offset of the payload of the begun packet in {@link #segment()}.
     */
    long payloadOffset()
    {
        return spec.opcode().headerLength();
    }

    /**
     * Finish the begun packet (payload already placed at {@link #payloadOffset()}) and queue it on the link:
     * whoever drives the transport (a {@code postSend}, the progress loop's cycle) flushes at its end.
     *
     * @param payloadLength payload bytes.
     * @return true if the link took it.
     */
    boolean send(final int payloadLength)
    {
        final int length = builder.build(spec, payloadLength, segment, 0);
        buffer.clear().limit(length);
        if (engine.queue(buffer, qp.destination(), qp.hopLimit()))
        {
            qp.qpCounters().increment(SoftCounter.SENT_PKTS);
            return true;
        }
        qp.count(SoftCounter.SEND_ERR);
        return false;
    }
}
