package io.rdma4j.soft.cm;

/**
 * The states of an id, named as the kernel's {@code enum rdma_cm_state} names them so errors read
 * the same. CONNECT covers a connection from the first request to its end, as in the kernel; the
 * IB CM's finer view is {@link CmConnection.Phase}.
 */
enum CmState
{
    IDLE, ADDR_QUERY, ADDR_RESOLVED, ROUTE_QUERY, ROUTE_RESOLVED, CONNECT, DISCONNECT, ADDR_BOUND, LISTEN,
    DESTROYING
}
