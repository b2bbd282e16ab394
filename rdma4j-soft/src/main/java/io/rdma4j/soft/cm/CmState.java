package io.rdma4j.soft.cm;

/**
 * The states of an id that the multicast part of rdma_cm passes through, named as the kernel's
 * {@code enum rdma_cm_state} names them so errors read the same.
 */
enum CmState
{
    IDLE, ADDR_QUERY, ADDR_RESOLVED, ROUTE_QUERY, ROUTE_RESOLVED, ADDR_BOUND, DESTROYING
}
