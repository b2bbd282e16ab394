package io.rdma4j.soft.transport;


/**
 * The default transport of each QP type.
 */
public final class Transports
{
    /**
     * READ response packets (and atomic ACKs) a QP's responder sends per turn of the progress loop:
     * a large READ is answered over many turns, with other QPs' datagrams handled in between.
     */
    public static final int RESPONSE_PACKETS_PER_TURN = 32;

    private Transports()
    {
    }

    /**
     * @param qp a new QP.
     * @return UD for UD QPs; the connected transport for RC and UC.
     */
    public static QpTransport create(final TransportQp qp)
    {
        return switch (qp.type())
        {
            case UD -> new UdTransport(qp);
            case RC -> new ConnectedTransport(qp, false);
            case UC -> new ConnectedTransport(qp, true);
        };
    }
}
