package io.rdma4j.soft.transport;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.resource.SoftMr;
import io.rdma4j.soft.wire.AethFlyweight;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.OpcodeMask;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AsyncEvent;
import io.rdma4j.verbs.AsyncEventType;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.WcFlags;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Locale;

/**
 * The RC/UC responder: checks each request in protocol order, as {@link RespState} spells it out
 * (PSN, opcode sequence, operation allowed, receive WQE, lengths, rkey), executes it, completes
 * receive WQEs and acknowledges. Its state is touched only by the device's progress thread.
 * <p>
 * RC: a PSN ahead of the expected one is NAKed (PSN sequence error) once per gap; a duplicate
 * SEND/WRITE is re-ACKed with the last PSN taken; a duplicate READ is answered again from memory
 * if the resource ring still holds it, a duplicate atomic gets its saved original value. ACKs go
 * only to AckReq packets and are coalesced: the newest pending ACK is sent once the progress thread
 * finished the batch of datagrams it received ({@link #onTimer}), or before any other response.
 * <p>
 * READ responses and atomic ACKs are owed in request order and sent at most
 * {@link Transports#RESPONSE_PACKETS_PER_TURN} per turn of the progress loop: the first slice at
 * once, the rest from {@link #onTimer}, which asks the loop to come back while responses are owed.
 * A 64 MiB READ thus no longer holds the progress thread for the other QPs' datagrams. A duplicate
 * READ restarts its entry's run from the PSN it asks for, so a flood of duplicates costs a slice each
 * at most, not a full replay each. ACKs and NAKs for later PSNs wait until the responses owed are
 * sent, so the requester sees answers in PSN order.
 * A SEND (or WRITE with immediate) without a receive WQE gets an RNR NAK with min_rnr_timer.
 * Remote access errors and invalid requests are NAKed and move the QP to ERR.
 * <p>
 * UC: no ACKs or NAKs. A gap or a bad packet drops the message in progress only; the responder
 * picks up again at the next first packet of a message, keeping a receive WQE it had taken.
 * <p>
 * DESIGN (SEND with invalidate): the device has no memory windows or fast-register regions, so
 * nothing is invalidated; the receive completes with WITH_INV and the rkey, as the verbs report it.
 */
final class Responder implements BatchEndWork
{
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    /**
     * The states a request walks through: the checks in protocol order, then one error state per
     * cause, so that the arm of {@link #onPacket}'s switch for a cause alone says what it costs.
     */
    enum RespState
    {
        CHECK_PSN, CHECK_OP_SEQ, CHECK_OP_VALID, CHECK_RESOURCE, CHECK_LENGTH, CHECK_RKEY, EXECUTE, COMPLETE,
        ACKNOWLEDGE, DUPLICATE, DONE, DROP,
        ERR_PSN_SEQUENCE("RC: a PSN ahead of the expected one (UC resynchronises instead)"),
        ERR_RNR("a message that takes a receive WQE found none"),
        ERR_OPCODE_SEQUENCE(
            "an opcode out of sequence: a middle or last packet outside a message, or a new message inside one"),
        ERR_OPCODE_UNSUPPORTED("an opcode this device does not serve (FLUSH, ATOMIC WRITE)"),
        ERR_OPERATION_NOT_ALLOWED("a WRITE, READ or atomic the QP's access flags do not allow"),
        ERR_NO_RD_ATOMIC_RESOURCES("a READ or atomic to a QP with max_dest_rd_atomic 0"),
        ERR_PACKET_LENGTH(
            "a payload the path MTU and the packet's place in its message forbid, or a DMA length above 2^31"),
        ERR_RECV_TOO_SMALL("a SEND longer than the receive WQE's buffers"),
        ERR_WRITE_LENGTH(
            "WRITE payload beyond the RETH's DMA length, or a last packet that leaves part of it unwritten"),
        ERR_WRITE_RKEY("a WRITE's rkey, range or access right does not check out"),
        ERR_READ_RKEY("a READ's rkey, range or access right does not check out"),
        ERR_ATOMIC_MISALIGNED("an atomic whose address is not 8-byte aligned"),
        ERR_ATOMIC_RKEY("an atomic's rkey, range or access right does not check out"),
        ERR_RECV_SCATTER(
            "a SEND's payload could not be written to the receive WQE's buffers (an lkey gone since posting)");

        /** What an error state's request broke, for the log; empty for the checks and the end states. */
        final String description;

        RespState()
        {
            this("");
        }

        RespState(final String description)
        {
            this.description = description;
        }
    }

    private static final System.Logger LOG = System.getLogger(Responder.class.getName());

    private final TransportQp qp;
    private final boolean uc;
    private final PacketOut out;
    private final RecvWqe recv;
    private final CompletionWriter completion = new CompletionWriter();
    private final ResponderResource[] resources;
    private volatile boolean resetRequested = true;
    private int psn;
    private int msn;
    private boolean nakSent;
    private boolean ucDropping;
    private boolean commEstablished;
    private int lastMask = OpcodeMask.END;
    private boolean haveRecv;
    private long recvOffset;
    private SoftMr writeMr;
    private long writeVa;
    private long writeRemaining;
    private long writeLength;
    private int nextResource;
    private boolean ackPending;
    /** On the device's list of work for the end of the receive batch: a coalesced ACK or responses owed. */
    private boolean batchEndQueued;
    private int ackPsn;
    private int ackSyndrome = AethFlyweight.ACK_UNLIMITED_CREDIT;
    private int pendingResponses;
    private long responseSeq;
    private SoftMr mr;

    Responder(final TransportQp qp, final boolean uc)
    {
        this.qp = qp;
        this.uc = uc;
        this.out = new PacketOut(qp, true);
        this.recv = new RecvWqe(Math.max(Math.max(1, qp.cap().maxRecvSge()),
            qp.srqPool() != null ? qp.srqPool().queue().maxSge() : 0));
        final int ring = Math.max(1, qp.device().maxQpRdAtom());
        resources = new ResponderResource[ring];
        for (int i = 0; i < ring; i++)
        {
            resources[i] = new ResponderResource();
        }
    }

    /**
     * Forget everything at the next packet (the QP went to RESET).
     */
    void requestReset()
    {
        resetRequested = true;
    }

    private void resetNow()
    {
        resetRequested = false;
        psn = qp.rqPsn();
        msn = 0;
        nakSent = false;
        ucDropping = false;
        commEstablished = false;
        lastMask = OpcodeMask.END;
        haveRecv = false;
        recvOffset = 0;
        writeMr = null;
        ackPending = false;
        nextResource = 0;
        abandonResponses();
        for (final ResponderResource r : resources)
        {
            r.type = ResponderResource.NONE;
        }
    }

    /**
     * Handle a request packet.
     *
     * @param packet the request.
     */
    void onPacket(final PacketInfo packet)
    {
        final QpState state = qp.state();
        if (!responds(state))
        {
            qp.count(SoftCounter.DROP_QP_STATE);
            flushHeldIfError();
            return;
        }
        if (resetRequested)
        {
            resetNow();
        }
        if (state == QpState.RTR && !commEstablished)
        {
            commEstablished = true;
            qp.device().postAsyncEvent(new AsyncEvent(AsyncEventType.COMM_EST, qp, null, null, 0));
        }
        commEstablished = true;
        // owned: an RC or UC QP hears packets on the receiving thread only (multicast loops back to UD QPs)
        qp.qpCounters().incrementOwned(SoftCounter.RCVD_PKTS);
        RespState s = RespState.CHECK_PSN;
        while (true)
        {
            switch (s)
            {
                case CHECK_PSN -> s = uc ? checkPsnUc(packet) : checkPsn(packet);
                case CHECK_OP_SEQ -> s = checkOpSequence(packet);
                case CHECK_OP_VALID -> s = checkOpValid(packet);
                case CHECK_RESOURCE -> s = checkResource(packet);
                case CHECK_LENGTH -> s = checkLength(packet);
                case CHECK_RKEY -> s = checkRkey(packet);
                case EXECUTE -> s = execute(packet);
                case COMPLETE -> s = complete(packet);
                case ACKNOWLEDGE ->
                {
                    if (!uc && packet.ackReq())
                    {
                        queueAck(packet.psn());
                    }
                    s = RespState.DONE;
                }
                case DUPLICATE -> s = duplicate(packet);
                // one arm per cause: the NAK (none on UC, where the message is dropped), the status of a
                // receive WQE the message holds, and whether the QP goes to ERR
                case ERR_PSN_SEQUENCE ->
                {
                    qp.count(SoftCounter.SENT_NAKS);
                    nak(AethFlyweight.NAK_PSN_SEQUENCE_ERROR, psn);
                    s = RespState.DROP;
                }
                case ERR_RNR ->
                {
                    if (uc)
                    {
                        qp.count(SoftCounter.DROP_NO_RECV_WQE);
                        s = dropMessage();
                    }
                    else
                    {
                        // counted before the NAK goes: the requester's completion must not overtake the count
                        qp.count(SoftCounter.SEND_RNR_ERR);
                        nak(AethFlyweight.TYPE_RNR_NAK | (qp.minRnrTimer() & AethFlyweight.VALUE_MASK),
                            packet.psn());
                        s = RespState.DROP;
                    }
                }
                case ERR_OPCODE_SEQUENCE, ERR_OPCODE_UNSUPPORTED, ERR_OPERATION_NOT_ALLOWED, ERR_NO_RD_ATOMIC_RESOURCES,
                    ERR_PACKET_LENGTH, ERR_WRITE_LENGTH, ERR_ATOMIC_MISALIGNED ->
                    s = uc ? dropMessage() : fatal(packet, s, AethFlyweight.NAK_INVALID_REQUEST,
                        AsyncEventType.QP_REQ_ERR, WcStatus.REM_INV_REQ_ERR);
                case ERR_RECV_TOO_SMALL ->
                {
                    // rxe reports it as an invalid request on both sides
                    qp.count(SoftCounter.DROP_RECV_TOO_SMALL);
                    s = uc ? dropMessage() : fatal(packet, s, AethFlyweight.NAK_INVALID_REQUEST,
                        AsyncEventType.QP_REQ_ERR, WcStatus.REM_INV_REQ_ERR);
                }
                case ERR_WRITE_RKEY, ERR_READ_RKEY, ERR_ATOMIC_RKEY ->
                    s = uc ? dropMessage() : fatal(packet, s, AethFlyweight.NAK_REMOTE_ACCESS_ERROR,
                        AsyncEventType.QP_ACCESS_ERR, WcStatus.REM_ACCESS_ERR);
                case ERR_RECV_SCATTER ->
                    s = uc ? dropMessage() : fatal(packet, s, AethFlyweight.NAK_REMOTE_OPERATIONAL_ERROR,
                        AsyncEventType.QP_FATAL, WcStatus.LOC_PROT_ERR);
                case DROP, DONE ->
                {
                    return;
                }
            }
        }
    }

    /**
     * @return true in the states where the responder takes requests and answers them (RTR on).
     */
    private static boolean responds(final QpState state)
    {
        return state != QpState.RESET && state != QpState.INIT && state != QpState.ERR;
    }

    private RespState checkPsn(final PacketInfo packet)
    {
        final int d = Psn.diff(packet.psn(), psn);
        if (d > 0)
        {
            qp.count(SoftCounter.OUT_OF_SEQ_REQUEST);
            if (nakSent)
            {
                return RespState.DROP;
            }
            nakSent = true;
            return RespState.ERR_PSN_SEQUENCE;
        }
        if (d < 0)
        {
            qp.count(SoftCounter.DUPLICATE_REQUEST);
            return RespState.DUPLICATE;
        }
        nakSent = false;
        return RespState.CHECK_OP_SEQ;
    }

    private RespState checkPsnUc(final PacketInfo packet)
    {
        if (packet.psn() == psn && !ucDropping)
        {
            return RespState.CHECK_OP_SEQ;
        }
        if (packet.psn() != psn)
        {
            qp.count(SoftCounter.OUT_OF_SEQ_REQUEST);
        }
        abandonMessage();
        if (packet.has(OpcodeMask.START))
        {
            // a new message begins: resynchronise on it
            ucDropping = false;
            psn = packet.psn();
            return RespState.CHECK_OP_SEQ;
        }
        ucDropping = true;
        psn = Psn.add(packet.psn(), 1);
        return RespState.DROP;
    }

    private RespState checkOpSequence(final PacketInfo packet)
    {
        final boolean inMessage = (lastMask & OpcodeMask.END) == 0;
        final boolean ok;
        if (inMessage)
        {
            final int kind = lastMask & (OpcodeMask.SEND | OpcodeMask.WRITE);
            ok = packet.has(OpcodeMask.MIDDLE | OpcodeMask.END) && !packet.has(OpcodeMask.START) &&
                (packet.mask() & kind) != 0;
        }
        else
        {
            ok = packet.has(OpcodeMask.START);
        }
        if (ok)
        {
            return RespState.CHECK_OP_VALID;
        }
        return RespState.ERR_OPCODE_SEQUENCE;
    }

    private RespState checkOpValid(final PacketInfo packet)
    {
        final int access = qp.accessFlags();
        final int needed;
        if (packet.has(OpcodeMask.WRITE))
        {
            needed = AccessFlag.REMOTE_WRITE.bit();
        }
        else if (packet.has(OpcodeMask.READ))
        {
            needed = AccessFlag.REMOTE_READ.bit();
        }
        else if (packet.has(OpcodeMask.ATOMIC))
        {
            needed = AccessFlag.REMOTE_ATOMIC.bit();
        }
        else if (packet.has(OpcodeMask.SEND))
        {
            needed = 0;
        }
        else
        {
            // FLUSH and ATOMIC WRITE: not offered by this device
            return RespState.ERR_OPCODE_UNSUPPORTED;
        }
        if ((access & needed) != needed)
        {
            return RespState.ERR_OPERATION_NOT_ALLOWED;
        }
        if (packet.has(OpcodeMask.READ | OpcodeMask.ATOMIC) && qp.maxDestRdAtomic() == 0)
        {
            return RespState.ERR_NO_RD_ATOMIC_RESOURCES;
        }
        return RespState.CHECK_RESOURCE;
    }

    private RespState checkResource(final PacketInfo packet)
    {
        if (!packet.has(OpcodeMask.TAKES_RECV_WQE) || haveRecv)
        {
            return RespState.CHECK_LENGTH;
        }
        final RecvQueue source = qp.receiveSource();
        if (!source.take(recv))
        {
            return RespState.ERR_RNR;
        }
        final SharedRecvPool srq = qp.srqPool();
        if (srq != null)
        {
            srq.afterTake();
        }
        haveRecv = true;
        recvOffset = 0;
        return RespState.CHECK_LENGTH;
    }

    private RespState checkLength(final PacketInfo packet)
    {
        final int mtu = qp.pathMtu().bytes();
        final int length = packet.payloadLength();
        final boolean start = packet.has(OpcodeMask.START);
        final boolean end = packet.has(OpcodeMask.END);
        final boolean bad;
        if (!end)
        {
            bad = length != mtu;
        }
        else if (!start)
        {
            bad = length == 0 || length > mtu;
        }
        else
        {
            bad = length > mtu;
        }
        if (bad || (packet.has(OpcodeMask.RETH) && packet.dmaLength() > (1L << 31)))
        {
            return RespState.ERR_PACKET_LENGTH;
        }
        if (packet.has(OpcodeMask.SEND) && recvOffset + length > recv.totalLength)
        {
            return RespState.ERR_RECV_TOO_SMALL;
        }
        return RespState.CHECK_RKEY;
    }

    private RespState checkRkey(final PacketInfo packet)
    {
        if (packet.has(OpcodeMask.WRITE))
        {
            if (packet.has(OpcodeMask.RETH))
            {
                writeVa = packet.va();
                writeLength = packet.dmaLength();
                writeRemaining = writeLength;
                writeMr = null;
                if (writeLength > 0)
                {
                    writeMr = remoteMr(packet.rkey(), writeVa, writeLength, AccessFlag.REMOTE_WRITE.bit());
                    if (writeMr == null)
                    {
                        return RespState.ERR_WRITE_RKEY;
                    }
                }
            }
            final long length = packet.payloadLength();
            final boolean end = packet.has(OpcodeMask.END);
            if (length > writeRemaining || (end && length != writeRemaining))
            {
                return RespState.ERR_WRITE_LENGTH;
            }
            return RespState.EXECUTE;
        }
        if (packet.has(OpcodeMask.READ))
        {
            mr = null;
            if (packet.dmaLength() > 0)
            {
                mr = remoteMr(packet.rkey(), packet.va(), packet.dmaLength(), AccessFlag.REMOTE_READ.bit());
                if (mr == null)
                {
                    return RespState.ERR_READ_RKEY;
                }
            }
            return RespState.EXECUTE;
        }
        if (packet.has(OpcodeMask.ATOMIC))
        {
            if ((packet.va() & 7) != 0)
            {
                return RespState.ERR_ATOMIC_MISALIGNED;
            }
            mr = remoteMr(packet.rkey(), packet.va(), Long.BYTES, AccessFlag.REMOTE_ATOMIC.bit());
            return mr == null ? RespState.ERR_ATOMIC_RKEY : RespState.EXECUTE;
        }
        return RespState.EXECUTE;
    }

    private SoftMr remoteMr(final int rkey, final long va, final long length, final int accessBit)
    {
        final SoftMr found = qp.device().mrTable().lookup(rkey);
        if (found == null || found.pd() != qp.pd() || !found.covers(va, length) ||
            (found.accessBits() & accessBit) == 0)
        {
            return null;
        }
        return found;
    }

    private RespState execute(final PacketInfo packet)
    {
        final int length = packet.payloadLength();
        if (packet.has(OpcodeMask.SEND))
        {
            if (!MemoryAccess.scatter(recv, qp.device().mrTable(), qp.pd(), recvOffset, packet.segment(),
                packet.payloadOffset(), length))
            {
                return RespState.ERR_RECV_SCATTER;
            }
            recvOffset += length;
        }
        else if (packet.has(OpcodeMask.WRITE))
        {
            if (length > 0)
            {
                MemorySegment.copy(packet.segment(), packet.payloadOffset(), writeMr.segment(),
                    writeVa - writeMr.address(), length);
            }
            writeVa += length;
            writeRemaining -= length;
        }
        else if (packet.has(OpcodeMask.READ))
        {
            final int mtu = qp.pathMtu().bytes();
            final int packets = Psn.packets(packet.dmaLength(), mtu);
            final ResponderResource r = nextResource();
            msn = (msn + 1) & Psn.MASK;
            r.read(packet.psn(), Psn.add(packet.psn(), packets - 1), packet.va(), packet.rkey(), packet.dmaLength(),
                msn);
            r.run(packet.psn(), packet.va(), packet.dmaLength(), mtu);
            psn = Psn.add(packet.psn(), packets);
            lastMask = packet.mask();
            qp.count(SoftCounter.RDMA_RECVS);
            queueResponses(r);
            return RespState.DONE;
        }
        else if (packet.has(OpcodeMask.ATOMIC))
        {
            final long offset = packet.va() - mr.address();
            final long orig = packet.opcode() == Opcode.RC_COMPARE_SWAP ?
                (long)LONG.compareAndExchange(mr.segment(), offset, packet.compare(), packet.swapAdd()) :
                (long)LONG.getAndAdd(mr.segment(), offset, packet.swapAdd());
            final ResponderResource r = nextResource();
            msn = (msn + 1) & Psn.MASK;
            r.atomic(packet.psn(), packet.va(), packet.rkey(), orig, msn);
            psn = Psn.add(packet.psn(), 1);
            lastMask = packet.mask();
            qp.count(SoftCounter.RDMA_RECVS);
            queueResponses(r);
            return RespState.DONE;
        }
        psn = Psn.add(packet.psn(), 1);
        lastMask = packet.mask();
        qp.count(SoftCounter.RDMA_RECVS);
        if (packet.has(OpcodeMask.END))
        {
            msn = (msn + 1) & Psn.MASK;
        }
        return packet.has(OpcodeMask.COMPLETES) ? RespState.COMPLETE : RespState.ACKNOWLEDGE;
    }

    private ResponderResource nextResource()
    {
        final int ring = Math.max(1, Math.min(resources.length, qp.maxDestRdAtomic()));
        final ResponderResource r = resources[nextResource % ring];
        nextResource = (nextResource + 1) % ring;
        if (r.pending)
        {
            // the requester has more READs and atomics outstanding than max_dest_rd_atomic allows: the
            // oldest one's remaining responses are given up, so the ring stays its size
            finishResponses(r);
        }
        return r;
    }

    private RespState complete(final PacketInfo packet)
    {
        int flags = 0;
        int imm = 0;
        if (packet.has(OpcodeMask.IMMDT))
        {
            flags |= WcFlags.WITH_IMM;
            imm = packet.immediate();
        }
        if (packet.has(OpcodeMask.IETH))
        {
            flags |= WcFlags.WITH_INV;
            imm = packet.invalidateRkey();
        }
        final boolean write = packet.has(OpcodeMask.WRITE);
        haveRecv = false;
        final boolean acknowledged = !uc && packet.ackReq() && pendingResponses == 0;
        if (acknowledged)
        {
            // the ACK goes to the link before the completion is visible: an application that answers the
            // message at once (another thread may poll the CQ now) must not send its answer ahead of our ACK,
            // or the peer, whose send queue the ACK frees, may find it full when it answers in turn, as it never
            // would with rxe. Coalescing still merges the ACKs of a message's packets, and of WRITEs and READs
            queueAck(packet.psn());
            flushAck();
        }
        completion.begin(recv.wrId, write ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV)
            .byteLen((int)(write ? writeLength : recvOffset)).immData(imm).qpNum(qp.qpNum()).srcQp(qp.destQpNum())
            .wcFlags(flags).solicited(packet.se()).writeTo(qp.recvCompletions());
        recvOffset = 0;
        return acknowledged ? RespState.DONE : RespState.ACKNOWLEDGE;
    }

    private RespState duplicate(final PacketInfo packet)
    {
        if (uc)
        {
            return RespState.DROP;
        }
        if (packet.has(OpcodeMask.READ))
        {
            for (final ResponderResource r : resources)
            {
                if (r.type == ResponderResource.READ && r.covers(packet.psn()) && r.rkey == packet.rkey() &&
                    packet.va() >= r.va && packet.va() + packet.dmaLength() <= r.va + r.length)
                {
                    final SoftMr source = packet.dmaLength() == 0 ? null :
                        remoteMr(packet.rkey(), packet.va(), packet.dmaLength(), AccessFlag.REMOTE_READ.bit());
                    if (packet.dmaLength() > 0 && source == null)
                    {
                        return RespState.DROP;
                    }
                    // restart the entry's run from what the requester asks for now: if its responses are
                    // still being sent, this replaces them instead of queueing a second replay
                    r.run(packet.psn(), packet.va(), packet.dmaLength(), qp.pathMtu().bytes());
                    queueResponses(r);
                    return RespState.DONE;
                }
            }
            return RespState.DROP;
        }
        if (packet.has(OpcodeMask.ATOMIC))
        {
            for (final ResponderResource r : resources)
            {
                if (r.type == ResponderResource.ATOMIC && r.firstPsn == packet.psn())
                {
                    queueResponses(r);
                    return RespState.DONE;
                }
            }
            return RespState.DROP;
        }
        // C9-105: acknowledge again with the last PSN taken
        queueAck(Psn.add(psn, -1));
        return RespState.DONE;
    }

    private void abandonMessage()
    {
        lastMask = OpcodeMask.END;
        writeMr = null;
        writeRemaining = 0;
        recvOffset = 0;
    }

    /**
     * UC: drop the message in progress and every packet up to the next first packet; a receive WQE
     * the message had taken stays for the next message.
     */
    private RespState dropMessage()
    {
        abandonMessage();
        ucDropping = true;
        return RespState.DROP;
    }

    /**
     * RC: NAK the packet, complete a receive WQE the message holds with {@code recvStatus}, raise the
     * async event and move the QP to ERR.
     */
    private RespState fatal(final PacketInfo packet, final RespState cause, final int syndrome,
        final AsyncEventType event, final WcStatus recvStatus)
    {
        // once per QP, which leaves RTS for good: the requester learns only the NAK's class (its completion's
        // status), so what the request broke is said here, for whoever reads the responder's log
        LOG.log(System.Logger.Level.WARNING, () -> String.format(Locale.ROOT,
            "RC QP 0x%06x NAKs the request at PSN %d (%s, %d bytes of payload) and enters the error state: %s " +
            "[%s]; expected PSN %d, %s", qp.qpNum(), packet.psn(), packet.opcode(), packet.payloadLength(),
            cause.description, cause, psn, (lastMask & OpcodeMask.END) != 0 ? "between messages" :
            (lastMask & OpcodeMask.WRITE) != 0 ? "inside a WRITE, " + writeRemaining + " bytes of it left" :
            "inside a SEND"));
        abandonResponses();
        qp.count(SoftCounter.SENT_NAKS);
        sendAck(syndrome, packet.psn());
        if (haveRecv)
        {
            haveRecv = false;
            completion.begin(recv.wrId, WcOpcode.RECV).status(recvStatus).qpNum(qp.qpNum()).srcQp(qp.destQpNum())
                .writeTo(qp.recvCompletions());
        }
        qp.device().postAsyncEvent(new AsyncEvent(event, qp, null, null, 0));
        qp.enterError();
        return RespState.DONE;
    }

    private void queueAck(final int ackedPsn)
    {
        if (ackPending)
        {
            qp.count(SoftCounter.ACK_DEFERRED);
        }
        ackPending = true;
        ackPsn = ackedPsn;
        ackSyndrome = AethFlyweight.ACK_UNLIMITED_CREDIT;
        oweBatchEnd();
    }

    /**
     * Ask to be called once the batch of packets being received is handled: what this responder owes then
     * leaves, with the ACKs of the batch's other packets coalesced into one.
     */
    private void oweBatchEnd()
    {
        if (!batchEndQueued)
        {
            batchEndQueued = true;
            qp.device().batchEndOwed(this);
        }
    }

    /**
     * NAK now, or, while READ responses or atomic ACKs for earlier PSNs are still owed, once they
     * are sent: the requester must see answers in PSN order. The NAK takes the place of a pending
     * ACK, which it implies.
     */
    private void nak(final int syndrome, final int nakPsn)
    {
        if (pendingResponses == 0)
        {
            sendAck(syndrome, nakPsn);
            return;
        }
        ackPending = true;
        ackPsn = nakPsn;
        ackSyndrome = syndrome;
        oweBatchEnd();
    }

    private void flushAck()
    {
        if (ackPending)
        {
            ackPending = false;
            out.begin(Opcode.RC_ACKNOWLEDGE, ackPsn).syndrome(ackSyndrome).msn(msn);
            out.send(0);
            qp.count(ackSyndrome == AethFlyweight.ACK_UNLIMITED_CREDIT ? SoftCounter.SENT_ACKS : SoftCounter.SENT_NAKS);
        }
    }

    private void sendAck(final int syndrome, final int ackedPsn)
    {
        flushAck();
        out.begin(Opcode.RC_ACKNOWLEDGE, ackedPsn).syndrome(syndrome).msn(msn);
        out.send(0);
    }

    /**
     * Queue the responses of a READ or atomic entry (a restarted one keeps its place). With nothing
     * else owed, the pending ACK goes first and the first slice leaves at once; the rest follows on
     * later turns of the progress loop ({@link #onTimer}).
     */
    private void queueResponses(final ResponderResource r)
    {
        final boolean idle = pendingResponses == 0;
        if (!r.pending)
        {
            r.pending = true;
            r.seq = ++responseSeq;
            pendingResponses++;
        }
        if (idle)
        {
            flushAck();
            serveResponses();
        }
        if (pendingResponses > 0)
        {
            oweBatchEnd();
        }
    }

    /**
     * Send at most {@link Transports#RESPONSE_PACKETS_PER_TURN} packets of the responses owed, oldest
     * entry first, so that one large READ does not hold the progress thread from other QPs' packets.
     */
    private void serveResponses()
    {
        int budget = Transports.RESPONSE_PACKETS_PER_TURN;
        while (budget > 0 && pendingResponses > 0)
        {
            final ResponderResource r = oldestPending();
            if (r.type == ResponderResource.ATOMIC)
            {
                sendAtomicAck(r);
                budget--;
                finishResponses(r);
            }
            else
            {
                budget -= sendReadSlice(r, budget);
            }
        }
    }

    private ResponderResource oldestPending()
    {
        ResponderResource oldest = null;
        for (final ResponderResource r : resources)
        {
            if (r.pending && (oldest == null || r.seq < oldest.seq))
            {
                oldest = r;
            }
        }
        return oldest;
    }

    private void finishResponses(final ResponderResource r)
    {
        r.pending = false;
        pendingResponses--;
    }

    private void abandonResponses()
    {
        for (final ResponderResource r : resources)
        {
            r.pending = false;
        }
        pendingResponses = 0;
    }

    private void sendAtomicAck(final ResponderResource r)
    {
        out.begin(Opcode.RC_ATOMIC_ACKNOWLEDGE, r.firstPsn).syndrome(AethFlyweight.ACK_UNLIMITED_CREDIT).msn(r.msn)
            .orig(r.orig);
        out.send(0);
    }

    /**
     * Send the next packets of a READ response run, at most {@code budget}.
     *
     * @return packets sent.
     */
    private int sendReadSlice(final ResponderResource r, final int budget)
    {
        // the region is looked up again for every slice: it may have been deregistered meanwhile
        final SoftMr source = r.runLength == 0 ? null :
            remoteMr(r.rkey, r.runVa, r.runLength, AccessFlag.REMOTE_READ.bit());
        if (r.runLength > 0 && source == null)
        {
            // nothing more can be read: the requester's retry will find the rkey gone
            finishResponses(r);
            return 0;
        }
        final int mtu = r.runMtu;
        final int packets = r.runPackets;
        final int end = Math.min(packets, r.sent + budget);
        for (int i = r.sent; i < end; i++)
        {
            final Opcode opcode = packets == 1 ? Opcode.RC_RDMA_READ_RESPONSE_ONLY :
                i == 0 ? Opcode.RC_RDMA_READ_RESPONSE_FIRST :
                i == packets - 1 ? Opcode.RC_RDMA_READ_RESPONSE_LAST : Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
            final long offset = (long)i * mtu;
            final int payload = (int)Math.min(mtu, r.runLength - offset);
            final PacketInfo spec = out.begin(opcode, Psn.add(r.runPsn, i));
            if (opcode.has(OpcodeMask.AETH))
            {
                spec.syndrome(AethFlyweight.ACK_UNLIMITED_CREDIT).msn(r.msn);
            }
            if (payload > 0)
            {
                MemorySegment.copy(source.segment(), r.runVa + offset - source.address(), out.segment(),
                    out.payloadOffset(), payload);
            }
            out.send(payload);
        }
        final int sentNow = end - r.sent;
        r.sent = end;
        if (end == packets)
        {
            finishResponses(r);
        }
        return sentNow;
    }

    /**
     * The batch of received packets is handled: send the next slice of the responses owed, then, once none
     * are, the coalesced ACK. Asks again while responses are still owed, so that the progress loop comes
     * back at its next turn, after the datagrams waiting for it.
     */
    @Override
    public void onBatchEnd()
    {
        batchEndQueued = false;
        if (qp.isOpen())
        {
            serveOwed();
        }
    }

    /**
     * The device's timers run (a wake-up after the QP entered ERR among them): what a batch end would send,
     * and a receive WQE held when the QP went to ERR completes.
     *
     * @param nowNs the clock.
     * @return {@link Long#MAX_VALUE}: the responder arms no timer.
     */
    long onTimer(final long nowNs)
    {
        serveOwed();
        flushHeldIfError();
        return Long.MAX_VALUE;
    }

    private void serveOwed()
    {
        final QpState state = qp.state();
        if (pendingResponses > 0)
        {
            if (resetRequested || !responds(state))
            {
                abandonResponses();
            }
            else
            {
                serveResponses();
            }
        }
        if (ackPending && state != QpState.ERR && pendingResponses == 0)
        {
            flushAck();
        }
        if (pendingResponses > 0)
        {
            oweBatchEnd();
        }
    }

    private void flushHeldIfError()
    {
        if (haveRecv && qp.state() == QpState.ERR)
        {
            haveRecv = false;
            ackPending = false;
            qp.recvCompletions().flushRecv(recv.wrId, qp.qpNum());
        }
    }
}
