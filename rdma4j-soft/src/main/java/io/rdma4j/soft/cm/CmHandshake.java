package io.rdma4j.soft.cm;

import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.cm.RejectReason;
import io.rdma4j.soft.cm.mad.SidrStatus;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;

import java.net.InetSocketAddress;

/**
 * The connection verbs' own messages: the REQ or SIDR_REQ connect starts a connection with, the
 * REP or SIDR_REP accept answers with, the REJ or SIDR_REP reject answers with, and the QP
 * attributes initQpAttr reads from the messages exchanged. What follows each message (retries,
 * replies, events) is {@link CmConnection}'s.
 * <p>
 * Stateless; runs on the application thread calling the verb, with the channel's lock held and
 * the id's state checked by {@link SoftCmId}.
 */
final class CmHandshake
{
    private CmHandshake()
    {
    }

    /**
     * Start a connection: a SIDR_REQ for a datagram port space, else a REQ for the id's QP (or the
     * QP named in the parameters), sent with retries.
     *
     * @return the connection, in SIDR_REQ_SENT or REQ_SENT.
     * @throws RdmaException EINVAL if the id has no QP to name or the private data is too long.
     */
    static CmConnection connect(final SoftCmId id, final QueuePair qp, final ConnParam p)
    {
        final boolean datagram = id.portSpace() == PortSpace.UDP || id.portSpace() == PortSpace.IPOIB;
        RdmaException.check(qp != null || !datagram && p.qpNum() != 0, Errno.EINVAL,
            "connect: the id has no QP; create one with createQp, or name the RC QP you made in ConnParam.qpNum");
        checkPrivateData("connect", p.privateData(),
            datagram ? CmWire.SIDR_REQ_USER_DATA : CmWire.REQ_USER_DATA);
        final CmBinding binding = id.binding;
        final SoftEngine engine = binding.engine();
        final InetSocketAddress local = binding.localAddress();
        final InetSocketAddress peer = binding.peerAddress();
        final Gid peerGid = Gid.fromInet(peer.getAddress());
        final ConnectionManager cm = id.cm;
        final CmConnection c = new CmConnection(cm, id, engine, cm.newCommId(id), peerGid, true,
            datagram ? CmConnection.Phase.SIDR_REQ_SENT : CmConnection.Phase.REQ_SENT);
        c.tid = cm.newTid(c.localCommId);
        final long serviceId = CmWire.serviceId(id.portSpace(), peer.getPort());
        final Gid localGid = Gid.fromInet(local.getAddress());
        final byte[] mad;
        if (datagram)
        {
            mad = CmWire.encode(new CmMessage.SidrReq(c.tid, c.localCommId, serviceId, localGid, peerGid,
                local.getPort(), p.privateData()));
        }
        else
        {
            c.startingPsn = ConnectionManager.randomPsn();
            c.localQpn = qp != null ? qp.qpNum() : p.qpNum();
            final CmMessage.Req req = CmMessage.Req.builder()
                .tid(c.tid)
                .localCommId(c.localCommId)
                .serviceId(serviceId)
                .caGuid(binding.device().guid())
                .qpn(c.localQpn)
                .responderResources(ConnectionManager.clamp(p.responderResources(), engine.limits().maxQpRdAtom()))
                .initiatorDepth(ConnectionManager.clamp(p.initiatorDepth(), engine.limits().maxQpInitRdAtom()))
                .transportType(qp != null && qp.type() == QpType.UC ? 1 : 0)
                .flowControl(p.flowControl() != 0)
                .startingPsn(c.startingPsn)
                .retryCount(ConnectionManager.retry(p.retryCount()))
                .rnrRetryCount(ConnectionManager.retry(p.rnrRetryCount()))
                .pathMtu(engine.activeMtu().value())
                .srq(p.srq())
                .localAckTimeout(ConnectionManager.LOCAL_ACK_TIMEOUT)
                .flowLabel(flowLabel(local.getPort(), peer.getPort()))
                .hopLimit(Ipv4.DEFAULT_HOP_LIMIT)
                .srcIp(localGid)
                .dstIp(peerGid)
                .srcPort(local.getPort())
                .userData(p.privateData())
                .build();
            mad = CmWire.encode(req);
            c.request = req;
        }
        c.sendWithRetries(mad);
        return c;
    }

    /**
     * Answer a request: a SIDR_REP with the QP's number and Q_Key (the exchange ends there), or
     * take the QP to RTR and RTS and send a REP, sent with retries until the RTU.
     *
     * @throws RdmaException EINVAL if the id has no QP to name or the private data is too long.
     */
    static void accept(final SoftCmId id, final QueuePair qp, final CmConnection c, final ConnParam p)
    {
        RdmaException.check(qp != null || c.request instanceof CmMessage.Req && p.qpNum() != 0, Errno.EINVAL,
            "accept: the id has no QP; create one with createQp, or name the QP you made in ConnParam.qpNum");
        final SoftEngine engine = id.binding.engine();
        if (c.request instanceof CmMessage.SidrReq req)
        {
            checkPrivateData("accept", p.privateData(), CmWire.SIDR_REP_PRIVATE_DATA);
            engine.sendMad(CmWire.encode(new CmMessage.SidrRep(req.tid(), req.requestId(), SidrStatus.SUCCESS,
                qp.qpNum(), req.serviceId(), RdmaCm.UDP_QKEY, p.privateData())), c.peer);
            c.pending = null;
            c.phase = CmConnection.Phase.ESTABLISHED;
            c.releaseBacklog();
            return;
        }
        final CmMessage.Req req = (CmMessage.Req)c.request;
        checkPrivateData("accept", p.privateData(), CmWire.REP_PRIVATE_DATA);
        final int responderResources = Math.min(ConnectionManager.clamp(p.responderResources(),
            engine.limits().maxQpRdAtom()), req.initiatorDepth());
        final int initiatorDepth = Math.min(ConnectionManager.clamp(p.initiatorDepth(),
            engine.limits().maxQpInitRdAtom()), req.responderResources());
        if (qp != null)
        {
            // a side receives from the PSN it announced and sends from the PSN its peer announced
            ConnectionManager.connectQp(qp, engine, c.peer, req.qpn(), c.startingPsn, req.startingPsn(),
                req.pathMtu(), responderResources, initiatorDepth, req.retryCount(), req.rnrRetryCount());
        }
        // else the application moved the QP it made itself, with initQpAttr
        c.localQpn = qp != null ? qp.qpNum() : p.qpNum();
        final byte[] mad = CmWire.encode(new CmMessage.Rep(req.tid(), c.localCommId, req.localCommId(),
            c.localQpn, c.startingPsn, responderResources, initiatorDepth, p.flowControl() != 0,
            ConnectionManager.retry(p.rnrRetryCount()), p.srq() || qp != null && qp.srq() != null,
            id.binding.device().guid(), p.privateData()));
        // the request keeps its place in the backlog until the RTU comes or the REP is given up on
        c.phase = CmConnection.Phase.REP_SENT;
        c.sendWithRetries(mad);
    }

    /**
     * Refuse a request: a REJ of reason consumer-defined, or a SIDR_REP of status REJECT.
     *
     * @throws RdmaException EINVAL if the private data is too long.
     */
    static void reject(final SoftCmId id, final CmConnection c, final byte[] privateData)
    {
        final CmMessage answer;
        if (c.request instanceof CmMessage.SidrReq req)
        {
            checkPrivateData("reject", privateData, CmWire.SIDR_REP_PRIVATE_DATA);
            answer = new CmMessage.SidrRep(req.tid(), req.requestId(), SidrStatus.REJECT, 0, req.serviceId(), 0,
                privateData);
        }
        else
        {
            final CmMessage.Req req = (CmMessage.Req)c.request;
            checkPrivateData("reject", privateData, CmWire.REJ_PRIVATE_DATA);
            answer = new CmMessage.Rej(req.tid(), c.localCommId, req.localCommId(), CmWire.REJECTED_REQ,
                RejectReason.CONSUMER_DEFINED.code(), privateData);
        }
        id.binding.engine().sendMad(CmWire.encode(answer), c.peer);
        c.phase = CmConnection.Phase.CLOSED;
        c.releaseBacklog();
    }

    /**
     * The RTR or RTS attributes of a connection, from its REQ and (on the active side) its REP; the
     * passive side uses the request's own resources capped by the device, as rdma_cm would.
     *
     * @throws RdmaException EINVAL before the peer's parameters are known.
     */
    static QpAttr qpAttr(final SoftCmId id, final CmConnection c, final QpType type, final QpState qpState)
    {
        final CmMessage.Req req = c != null && c.request instanceof CmMessage.Req r ? r : null;
        final boolean known = req != null && (c.active ? c.reply != null :
            c.phase == CmConnection.Phase.REQ_RCVD || c.phase == CmConnection.Phase.REP_SENT ||
            c.phase == CmConnection.Phase.MRA_REP_RCVD || c.phase == CmConnection.Phase.ESTABLISHED);
        RdmaException.check(known, Errno.EINVAL, "initQpAttr: the id has no connection parameters for " + qpState +
            " yet (" + (c == null ? id.stateLocked() : c.phase) + "); wait for CONNECT_RESPONSE or CONNECT_REQUEST");
        final SoftEngine engine = id.binding.engine();
        if (c.active)
        {
            final CmMessage.Rep rep = c.reply;
            return qpState == QpState.RTR ?
                ConnectionManager.rtrAttr(type, engine, c.peer, rep.qpn(), c.startingPsn, req.pathMtu(),
                    Math.min(req.responderResources(), rep.initiatorDepth())) :
                ConnectionManager.rtsAttr(type, rep.startingPsn(),
                    Math.min(req.initiatorDepth(), rep.responderResources()), req.retryCount(),
                    rep.rnrRetryCount());
        }
        return qpState == QpState.RTR ?
            ConnectionManager.rtrAttr(type, engine, c.peer, req.qpn(), c.startingPsn, req.pathMtu(),
                Math.min(engine.limits().maxQpRdAtom(), req.initiatorDepth())) :
            ConnectionManager.rtsAttr(type, req.startingPsn(),
                Math.min(engine.limits().maxQpInitRdAtom(), req.responderResources()), req.retryCount(),
                req.rnrRetryCount());
    }

    private static void checkPrivateData(final String verb, final byte[] data, final int limit)
    {
        RdmaException.check(data == null || data.length <= limit, Errno.EINVAL,
            verb + ": " + (data == null ? 0 : data.length) + " bytes of private data exceed the " + limit +
            " the message carries");
    }

    /** rdma_cm's RoCE flow label: (source port × 31 + destination port), 20 bits. */
    private static int flowLabel(final int sourcePort, final int destinationPort)
    {
        return (sourcePort * 31 + destinationPort) & 0xFFFFF;
    }
}
