package io.rdma4j.cm;

/**
 * Connection-manager events ({@code enum rdma_cm_event_type}), in librdmacm's order.
 */
public enum CmEventType
{
    ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR, CONNECT_REQUEST, CONNECT_RESPONSE, CONNECT_ERROR,
    UNREACHABLE, REJECTED, ESTABLISHED, DISCONNECTED, DEVICE_REMOVAL, MULTICAST_JOIN, MULTICAST_ERROR, ADDR_CHANGE,
    TIMEWAIT_EXIT;

    /**
     * @return the text {@code rdma_event_str} gives.
     */
    public String description()
    {
        return "RDMA_CM_EVENT_" + name();
    }
}
