package io.rdma4j.soft.transport;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.resource.MrTable;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.soft.wire.DeferredIcrc;
import io.rdma4j.soft.wire.Icrc;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.PacketBuilder;
import io.rdma4j.soft.wire.PacketInfo;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * One role's room to build and send packets to the QP's connected peer: a direct buffer, the
 * reused packet description and a builder. The requester has one (used under the send lock) and
 * the responder has one (used on the progress thread), so the two never share a buffer.
 */
final class PacketOut
{
    /** {@link #send}: queued on the link. */
    static final int SENT = 0;
    /** {@link #send}: the link refused the packet (counted there): lost, as on a wire. */
    static final int DROPPED = 1;
    /** {@link #send}: the payload's memory went away under the send; nothing was sent. */
    static final int PAYLOAD_GONE = 2;

    private static final int ROOM = 8192;
    /** Where a packet sent in place keeps its pad and ICRC: past any headers. */
    private static final int TAIL_OFFSET = ROOM - 16;

    private final TransportQp qp;
    private final TransportDevice device;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(ROOM);
    private final MemorySegment segment = MemorySegment.ofBuffer(buffer);
    private final PacketInfo spec = new PacketInfo();
    private final PacketBuilder builder = new PacketBuilder();
    private final ByteBuffer head = buffer.duplicate();
    private final ByteBuffer tail = buffer.duplicate();
    private final MemoryAccess.InPlace inPlace = new MemoryAccess.InPlace();
    private boolean payloadInPlace;
    /** The parts of the in-place packet being queued that its tail's ICRC covers. */
    private int headLength;
    private int payloadLength;
    private int pad;
    /** That ICRC, for a link whose path needs one: made once, not per packet. */
    private final DeferredIcrc partsIcrc = this::icrcOfParts;
    /** The responder's: used only on the receive side, which counts its packets without an atomic. */
    private final boolean receiveSide;

    /**
     * @param qp          the QP.
     * @param receiveSide true for the responder's, which only the holder of the device's receive claim uses
     *                    (its packets count on the counters' receive-side slots); false for the requester's.
     */
    PacketOut(final TransportQp qp, final boolean receiveSide)
    {
        this.qp = qp;
        this.device = qp.device();
        this.receiveSide = receiveSide;
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
        return device.network(spec.clear().opcode(opcode).destQp(qp.destQpNum()).psn(psn & Psn.MASK),
            qp.destinationGid());
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
     * Make the begun packet's payload ready: found in place in registered memory where the link can send it
     * from there (one SGE covers it), else gathered (copied) to {@link #payloadOffset()}. IPv6 packets are
     * always copied: the two-place ICRC ({@code Icrc.compute} of a head and a payload) masks an IPv4 header.
     *
     * @param wqe    the send WQE.
     * @param mrs    the device's memory regions.
     * @param pd     the QP's PD.
     * @param offset where in the message the payload starts.
     * @param length the payload's length.
     * @return false on a bad lkey, PD or range (LOC_PROT_ERR).
     */
    boolean stagePayload(final SendWqe wqe, final MrTable mrs, final ProtectionDomain pd, final long offset, final int length)
    {
        payloadInPlace = device.gathers() &&
            MemoryAccess.inPlace(wqe, mrs, pd, offset, length, inPlace);
        return payloadInPlace || MemoryAccess.gather(wqe, mrs, pd, offset, segment, payloadOffset(), length);
    }

    /**
     * Finish the begun packet (payload staged or already placed at {@link #payloadOffset()}) and queue it on
     * the link: whoever drives the transport (a {@code postSend}, the progress loop's cycle) flushes at its end.
     *
     * @param payloadLength payload bytes.
     * @return {@link #SENT}; {@link #DROPPED} if the link refused it, as a packet lost on the wire; or
     *         {@link #PAYLOAD_GONE} if it was not sent because the payload's arena closed after the payload
     *         was found in place (the requester's LOC_PROT_ERR: no later look at the region will find it).
     */
    int send(final int payloadLength)
    {
        final boolean queued;
        if (payloadInPlace)
        {
            payloadInPlace = false;
            queued = queueInPlace(payloadLength);
            if (!queued && !inPlace.segment.scope().isAlive())
            {
                qp.count(SoftCounter.SEND_ERR);
                return PAYLOAD_GONE;
            }
        }
        else
        {
            buffer.clear().limit(builder.buildWithoutIcrc(spec, payloadLength, segment, 0));
            queued = device.queue(buffer, qp.destination(), qp.hopLimit(), builder.lastIcrc());
        }
        if (queued)
        {
            qp.qpCounters().increment(SoftCounter.SENT_PKTS, receiveSide);
            return SENT;
        }
        qp.count(SoftCounter.SEND_ERR);
        return DROPPED;
    }

    /** Headers and tail here, the payload read by the link from the registered memory where it lies. */
    private boolean queueInPlace(final int payloadLength)
    {
        headLength = builder.buildHeaders(spec, payloadLength, segment, 0);
        this.payloadLength = payloadLength;
        pad = PacketBuilder.pad(payloadLength);
        for (int i = 0; i < pad; i++)
        {
            segment.set(ValueLayout.JAVA_BYTE, TAIL_OFFSET + i, (byte)0);
        }
        segment.set(Icrc.LAYOUT, TAIL_OFFSET + pad, 0);
        head.clear().limit(headLength);
        tail.limit(TAIL_OFFSET + pad + Icrc.LENGTH).position(TAIL_OFFSET);
        return device.queueGathered(head, inPlace.segment, inPlace.offset, payloadLength, tail, qp.destination(),
            qp.hopLimit(), partsIcrc);
    }

    /** The ICRC over headers, payload in place and pad, into the tail. */
    private boolean icrcOfParts()
    {
        final int icrc;
        try
        {
            icrc = builder.icrc().compute(segment, 0, headLength, inPlace.segment, inPlace.offset,
                payloadLength, pad, spec.sourceAddress(), spec.destinationAddress(), spec.sourcePort(),
                spec.destinationPort(), spec.ipIdentification(), spec.dontFragment());
        }
        catch (final IllegalStateException closed)
        {
            // the region's arena closed since the payload was found in place (another thread's close): not
            // sent (send_err), and the caller sees the arena closed
            return false;
        }
        segment.set(Icrc.LAYOUT, TAIL_OFFSET + pad, icrc);
        return true;
    }
}
