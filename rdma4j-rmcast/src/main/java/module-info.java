/**
 * Reliable multicast over rdma4j: a {@link io.rdma4j.rmcast.Publication} sends messages to a UD multicast
 * group joined through the connection manager, each {@link io.rdma4j.rmcast.Subscription} delivers them in
 * order per publisher session, and repairs a gap itself with RDMA READ from the publisher's registered
 * retransmit window over an RC connection. It uses the public API only, so it runs on either engine, and the counters
 * files of {@code io.rdma4j.stat} (the JDK only), where {@code rdma4j stat} shows each publication's and
 * subscription's counters.
 */
module io.rdma4j.rmcast
{
    requires transitive io.rdma4j.api;
    requires io.rdma4j.stat;

    exports io.rdma4j.rmcast;
}
