package io.rdma4j.netty;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.UdParam;

import java.net.InetSocketAddress;

/**
 * What the transport needs of a connection-manager event, copied out so the event can be acknowledged at once:
 * destroying an id waits until its events are acknowledged, and the thread that would destroy it is the event
 * loop that has yet to see the event.
 *
 * @param type        what happened.
 * @param id          the id it concerns; for CONNECT_REQUEST the new id.
 * @param listenId    for CONNECT_REQUEST the listening id, else null.
 * @param status      the event's status.
 * @param description the status in words.
 * @param privateData the peer's private data, or null.
 * @param udParam     for multicast and SIDR events, the address vector, QPN and Q_Key; else null.
 * @param group       for multicast events, the group; else null.
 */
record CmNotice(CmEventType type, CmId id, CmId listenId, int status, String description, byte[] privateData,
    UdParam udParam, InetSocketAddress group)
    implements RdmaIoEvent
{
    /**
     * @param event an event not yet acknowledged.
     * @return its copy.
     */
    static CmNotice of(final CmEvent event)
    {
        final byte[] data = event.connParam() == null ? null : event.connParam().privateData();
        return new CmNotice(event.type(), event.id(), event.listenId(), event.status(), event.statusDescription(),
            data, event.udParam(), event.multicastAddress());
    }

    /**
     * @return the object that handles it: the listener's context for a request, the id's otherwise.
     */
    Object target()
    {
        return type == CmEventType.CONNECT_REQUEST && listenId != null ? listenId.context() : id.context();
    }
}
