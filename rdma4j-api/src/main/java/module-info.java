/**
 * rdma4j's API: the verbs ({@code io.rdma4j.verbs}), the connection manager ({@code io.rdma4j.cm}) and
 * the interface an engine implements ({@code io.rdma4j.spi}). An application requires this module alone
 * and puts an engine beside it on the module path: {@code io.rdma4j.soft}, {@code io.rdma4j.rdmacore} or
 * both. The engines are found with {@link java.util.ServiceLoader}, so resolving this module binds every
 * engine present without the application naming one.
 */
module io.rdma4j.api
{
    exports io.rdma4j.verbs;
    exports io.rdma4j.cm;
    exports io.rdma4j.cm.ep;
    exports io.rdma4j.spi;

    uses io.rdma4j.spi.RdmaProvider;
}
