package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEventType;
import io.rdma4j.soft.SoftDevice;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.verbs.Gid;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The listening side of one id ({@code rdma_listen}): which requests it hears, its backlog and the
 * requests holding a place in it, the devices a wildcard listener opened, and the new id each
 * accepted request is reported on.
 * <p>
 * A request holds its place from its arrival until its connection is established or has ended: while the
 * application has not answered it, and, once accepted, while the REP waits for the RTU. So the backlog bounds
 * half-open connections too, as a listening TCP socket's backlog bounds its SYN queue; a request that finds it
 * full is dropped unanswered (the peer sends it again), as a SYN is.
 * <p>
 * Made by listen on the application thread; {@link #listensFor} and {@link #offer} run on the
 * connection-manager thread, {@link #releaseBacklogPlace} on whichever thread ends a request's wait: the
 * application's rejecting it or destroying its id, the CM thread's taking its RTU or giving its REP up.
 * All of it under the channel's lock.
 */
final class CmListener
{
    /** The backlog rdma_listen uses for a backlog of 0 or less. */
    static final int DEFAULT_BACKLOG = 128;

    private final SoftCmId id;
    private final int backlog;
    private int backlogUsed;
    /** Devices a wildcard listener opened to hear requests on. */
    private final List<SoftDevice> listenDevices = new ArrayList<>();

    CmListener(final SoftCmId id, final int requestedBacklog)
    {
        this.id = id;
        this.backlog = requestedBacklog <= 0 ? DEFAULT_BACKLOG : requestedBacklog;
    }

    /** A wildcard listener opens the process's default device to hear requests on. */
    void openDefaultDevice()
    {
        final SoftDevice chosen = id.cm.devices.defaultDevice(false);
        id.cm.devices.acquire(chosen);
        listenDevices.add(chosen);
    }

    /** @return the devices opened for listening, forgotten here; the caller releases them. */
    List<SoftDevice> takeDevices()
    {
        final List<SoftDevice> taken = new ArrayList<>(listenDevices);
        listenDevices.clear();
        return taken;
    }

    /**
     * @return true if this listener takes requests for the port space and port on the
     * destination address, arriving on that device.
     */
    boolean listensFor(final int space, final int port, final InetAddress destination, final SoftEngine engine)
    {
        id.channel.lock.lock();
        try
        {
            final InetSocketAddress local = id.localAddress();
            if (!id.listeningLocked() || CmWire.portSpaceCode(id.portSpace()) != space || local.getPort() != port)
            {
                return false;
            }
            if (id.binding.device() != null)
            {
                return id.binding.engine() == engine && local.getAddress().equals(destination);
            }
            final SoftDevice arrivedOn = id.cm.devices.deviceOf(engine);
            return arrivedOn != null && arrivedOn.address().equals(destination);
        }
        finally
        {
            id.channel.lock.unlock();
        }
    }

    /**
     * Report a request to this listener on a new id, if the backlog has room.
     *
     * @return HANDLED; DROP_BACKLOG_FULL when the backlog has no room; REFUSED when the listener stopped
     * listening or the device closed.
     */
    CmCounter offer(final SoftEngine engine, final CmMessage request, final Gid peer)
    {
        id.channel.lock.lock();
        try
        {
            // null when the device closed between the MAD's arrival and now: nobody to answer on
            final SoftDevice arrivedOn = id.cm.devices.deviceOf(engine);
            if (!id.listeningLocked() || arrivedOn == null)
            {
                return CmCounter.REFUSED;
            }
            if (backlogUsed >= backlog)
            {
                return CmCounter.DROP_BACKLOG_FULL;
            }
            final SoftCmId requested = new SoftCmId(id.channel, id.context(), id.portSpace());
            final boolean datagram = request instanceof CmMessage.SidrReq;
            final CmConnection c = new CmConnection(id.cm, requested, engine, id.cm.newCommId(requested), peer,
                false, datagram ? CmConnection.Phase.SIDR_REQ_RCVD : CmConnection.Phase.REQ_RCVD);
            c.request = request;
            c.tid = request.tid();
            c.listener = this;
            final int peerPort;
            final byte[] userData;
            if (request instanceof CmMessage.Req req)
            {
                c.remoteCommId = req.localCommId();
                c.remoteQpn = req.qpn();
                c.startingPsn = ConnectionManager.randomPsn();
                peerPort = req.srcPort();
                userData = req.userData();
            }
            else
            {
                final CmMessage.SidrReq req = (CmMessage.SidrReq)request;
                c.remoteCommId = req.requestId();
                peerPort = req.srcPort();
                userData = req.userData();
            }
            requested.binding.adopt(arrivedOn, id.localAddress().getPort(),
                new InetSocketAddress(peer.toInet(), peerPort));
            requested.adoptLocked(c);
            id.channel.adopt(requested);
            backlogUsed++;
            if (datagram)
            {
                ConnectionManager.post(requested, CmEventType.CONNECT_REQUEST, 0, null,
                    ConnectionManager.udParam(userData, peer, 0, 0), id);
            }
            else
            {
                ConnectionManager.post(requested, CmEventType.CONNECT_REQUEST, 0, ConnectionManager.connParam(request),
                    null, id);
            }
            return CmCounter.HANDLED;
        }
        finally
        {
            id.channel.lock.unlock();
        }
    }

    /** Lock held: true if this listener hears requests on the device (a wildcard listener's default device). */
    boolean hearsOnLocked(final SoftDevice device)
    {
        return listenDevices.contains(device);
    }

    /** Lock held: the requests held against the backlog, and the backlog, as {@code rdma4j stat} shows them. */
    String backlogLocked()
    {
        return backlogUsed + "/" + backlog;
    }

    /** @return a number that changes with what {@link #backlogLocked} says; read without the lock, as a hint. */
    long backlogKey()
    {
        return (long)backlogUsed << 32 | backlog;
    }

    /** A connection request this listener held was established or ended and no longer counts against the backlog. */
    void releaseBacklogPlace()
    {
        id.channel.lock.lock();
        try
        {
            backlogUsed--;
        }
        finally
        {
            id.channel.lock.unlock();
        }
    }
}
