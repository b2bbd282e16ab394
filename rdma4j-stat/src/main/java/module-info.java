/**
 * The counters files {@code rdma4j stat} reads, the writer and the reader: the JDK only, so that the soft device,
 * reliable multicast (a module over the public API, on either engine) and the tools share one format.
 */
module io.rdma4j.stat
{
    exports io.rdma4j.stat;
}
