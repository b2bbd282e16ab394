package io.rdma4j.soft.transport;


/**
 * Makes the transport of a new QP, by its type.
 */
@FunctionalInterface
public interface TransportFactory
{
    /**
     * @param qp the QP, constructed but not yet published.
     * @return its transport.
     */
    QpTransport create(TransportQp qp);
}
