/**
 * librdmacm's convenience layer ({@code rdma_getaddrinfo}, {@code rdma_create_ep} and the
 * {@code rdma_verbs.h} calls) over the public API, so it works on every engine: {@link io.rdma4j.cm.ep.AddrInfo}
 * names the two ends, {@link io.rdma4j.cm.ep.Endpoint} is a synchronous id with its QP, completion queues and
 * completion channels, whose connection-manager calls block until the event they lead to has come.
 * <p>
 * <b>Arrows.</b> Builds on {@code io.rdma4j.cm} (the ids and event channels it wraps) and {@code io.rdma4j.verbs}
 * (the QP, CQs, memory regions and errors); nothing in the API imports it. The tools' {@code rdma_server} and
 * {@code rdma_client} use it.
 */
package io.rdma4j.cm.ep;
