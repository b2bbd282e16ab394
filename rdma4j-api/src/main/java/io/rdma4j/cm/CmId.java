package io.rdma4j.cm;

import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;

import java.net.InetSocketAddress;

/**
 * A connection-manager id ({@code struct rdma_cm_id}): the rdma_cm counterpart of a socket.
 */
public interface CmId extends AutoCloseable
{
    /**
     * @return the channel its events go to.
     */
    EventChannel channel();

    /**
     * @return the user context.
     */
    Object context();

    /**
     * @param context a new user context.
     */
    void context(Object context);

    /**
     * @return the port space it was created in.
     */
    PortSpace portSpace();

    /**
     * @return the device context once bound or resolved, else null. The connection manager owns
     *         it: make PDs, CQs and channels from it and close those, but never close the context
     *         itself (that is EBUSY while the id uses it); it goes when its last id is closed.
     */
    Context verbs();

    /**
     * @return the QP created on it, or null.
     */
    QueuePair qp();

    /**
     * @return the local address once bound, else null.
     */
    InetSocketAddress localAddress();

    /**
     * @return the peer address once resolved, else null.
     */
    InetSocketAddress peerAddress();

    /**
     * Bind to a local address ({@code rdma_bind_addr}); port 0 picks a free port.
     *
     * @param address a local IP address and port.
     * @throws io.rdma4j.verbs.RdmaException EADDRNOTAVAIL if no device has that address,
     *                                       EADDRINUSE if the port is taken.
     */
    void bindAddr(InetSocketAddress address);

    /**
     * Resolve a destination address ({@code rdma_resolve_addr}); ADDR_RESOLVED or ADDR_ERROR follows.
     *
     * @param source      the local address to use, or null to pick one.
     * @param destination the peer or multicast group.
     * @param timeoutMs   how long resolution may take.
     */
    void resolveAddr(InetSocketAddress source, InetSocketAddress destination, int timeoutMs);

    /**
     * Resolve the route ({@code rdma_resolve_route}); ROUTE_RESOLVED or ROUTE_ERROR follows.
     *
     * @param timeoutMs how long it may take.
     */
    void resolveRoute(int timeoutMs);

    /**
     * Listen for connection requests ({@code rdma_listen}).
     *
     * @param backlog pending requests kept.
     */
    void listen(int backlog);

    /**
     * Create a QP for this id ({@code rdma_create_qp}): RC/UC in INIT, UD in RTS with Q_Key
     * {@link RdmaCm#UDP_QKEY}.
     *
     * @param pd       the PD, or null to use a default one of the device.
     * @param initAttr the QP's attributes.
     * @return the QP.
     */
    QueuePair createQp(ProtectionDomain pd, QpInitAttr initAttr);

    /**
     * Destroy the id's QP ({@code rdma_destroy_qp}). Closing the id does not do it: as with
     * librdmacm, destroy the QP first (after DISCONNECTED on a connection), then close the id.
     * The QP is detached from the groups the id joined first (librdmacm leaves that to the caller,
     * and the kernel then refuses to destroy the QP, its CQs and its PD); the joins remain until
     * left or the id is closed.
     */
    void destroyQp();

    /**
     * The attributes, with their mask, that move a QP the application created itself (not through
     * {@link #createQp}) to a state for this id's connection ({@code rdma_init_qp_attr}); pass
     * them to {@link QueuePair#modify}.
     *
     * @param state INIT, RTR or RTS.
     * @return the attributes.
     * @throws RdmaException EINVAL if the id does not know them yet; EOPNOTSUPP if the provider
     *                       does not offer it.
     */
    default QpAttr initQpAttr(final QpState state)
    {
        throw new RdmaException(Errno.EOPNOTSUPP, "initQpAttr: this provider's ids do not offer rdma_init_qp_attr");
    }

    /**
     * Complete an active connection made without a QP on the id ({@code rdma_establish}): after
     * CONNECT_RESPONSE and once the application's QP is in RTS, send the ready-to-use.
     *
     * @throws RdmaException EINVAL unless CONNECT_RESPONSE was reported; EOPNOTSUPP if the
     *                       provider does not offer it.
     */
    default void establish()
    {
        throw new RdmaException(Errno.EOPNOTSUPP, "establish: this provider's ids do not offer rdma_establish");
    }

    /**
     * Connect ({@code rdma_connect}). Without a QP on the id, {@link ConnParam#qpNum()} names the
     * application's RC QP and CONNECT_RESPONSE comes instead of ESTABLISHED: see {@link #establish()}.
     *
     * @param param connection parameters, or null for the defaults.
     */
    void connect(ConnParam param);

    /**
     * Accept a connection request ({@code rdma_accept}).
     *
     * @param param connection parameters, or null for the defaults.
     */
    void accept(ConnParam param);

    /**
     * Reject a connection request ({@code rdma_reject}).
     *
     * @param privateData data for the peer, or null.
     */
    void reject(byte[] privateData);

    /**
     * Disconnect ({@code rdma_disconnect}).
     */
    void disconnect();

    /**
     * Join a multicast group as a full member ({@code rdma_join_multicast}).
     *
     * @param group   the group address.
     * @param context returned in the MULTICAST_JOIN event.
     */
    void joinMulticast(InetSocketAddress group, Object context);

    /**
     * Join a multicast group ({@code rdma_join_multicast_ex}).
     *
     * @param group   the group address.
     * @param flags   FULLMEMBER or SENDONLY_FULLMEMBER.
     * @param context returned in the MULTICAST_JOIN event.
     * @throws io.rdma4j.verbs.RdmaException EINVAL if the id is neither bound nor resolved, or the
     *                                       group is the wildcard; ENOTSUPP for an IPv6 group on RoCEv2.
     */
    void joinMulticast(InetSocketAddress group, JoinFlags flags, Object context);

    /**
     * Leave a group ({@code rdma_leave_multicast}): detach the QP, leave the IP group, and wait
     * until every event of the join is acknowledged.
     *
     * @param group the address given to join.
     * @throws io.rdma4j.verbs.RdmaException EADDRNOTAVAIL if not joined to it.
     */
    void leaveMulticast(InetSocketAddress group);

    /**
     * Destroy the id ({@code rdma_destroy_id}); it leaves its groups. Waits until every event
     * reported for it is acknowledged. The teardown order is librdmacm's: disconnect and take
     * DISCONNECTED, {@link #destroyQp()}, close the memory regions and what else the application
     * made from {@link #verbs()}, then close the id; the PD the id made for a {@code createQp(null,
     * ...)} goes with it. Closing a listener rejects the requests nobody took from the channel.
     */
    @Override
    void close();
}
