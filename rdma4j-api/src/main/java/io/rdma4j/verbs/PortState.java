package io.rdma4j.verbs;

/**
 * Port states ({@code enum ibv_port_state}).
 */
public enum PortState
{
    NOP, DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER;

    /**
     * @return the text {@code ibv_port_state_str} gives.
     */
    public String description()
    {
        return "PORT_" + name();
    }
}
