package io.rdma4j.soft.cm;

/**
 * The states of an id, named as the kernel's {@code enum rdma_cm_state} names them so errors read
 * the same. An id's field only ever says CONNECT once it has a connection: from then on the
 * connection's {@link CmConnection.Phase} is the one record of where it stands, and DISCONNECT is
 * what {@link SoftCmId#stateLocked()} derives from it, never stored beside it.
 */
enum CmState
{
    IDLE, ADDR_QUERY, ADDR_RESOLVED, ROUTE_QUERY, ROUTE_RESOLVED, CONNECT, DISCONNECT, ADDR_BOUND, LISTEN,
    DESTROYING
}
