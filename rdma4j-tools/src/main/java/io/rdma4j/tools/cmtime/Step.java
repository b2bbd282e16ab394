package io.rdma4j.tools.cmtime;

/**
 * The steps cmtime times, in its table's order and with its names. Those rdma4j does not take apart (rdma_create_qp
 * moves the QP to INIT, and the connection manager moves it to RTR and RTS) stay at zero, as cmtime prints a step
 * it has no figures for.
 */
enum Step
{
    FULL_CONNECT("full connect"),
    CREATE_ID("create id"),
    BIND("bind addr"),
    RESOLVE_ADDR("resolve addr"),
    RESOLVE_ROUTE("resolve route"),
    CREATE_QP("create qp"),
    INIT_QP_ATTR("init qp attr"),
    INIT_QP("init qp"),
    RTR_QP_ATTR("rtr qp attr"),
    RTR_QP("rtr qp"),
    RTS_QP_ATTR("rts qp attr"),
    RTS_QP("rts qp"),
    CONNECT("cm connect"),
    ESTABLISH("establish"),
    DISCONNECT("disconnect"),
    DESTROY_ID("destroy id"),
    DESTROY_QP("destroy qp");

    private final String label;

    Step(final String label)
    {
        this.label = label;
    }

    /**
     * @return cmtime's name for the step.
     */
    String label()
    {
        return label;
    }
}
