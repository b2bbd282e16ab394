package io.rdma4j.soft.transport;

import io.rdma4j.soft.SoftQp;

/**
 * The default transport of each QP type.
 */
public final class Transports
{
    private Transports()
    {
    }

    /**
     * @param qp a new QP.
     * @return UD for UD QPs; the connected transport for RC and UC.
     */
    public static QpTransport create(final SoftQp qp)
    {
        return switch (qp.type())
        {
            case UD -> new UdTransport(qp);
            case RC -> new ConnectedTransport(qp, false);
            case UC -> new ConnectedTransport(qp, true);
        };
    }
}
