/**
 * The native connection manager: rdma-core's librdmacm through the FFM API.
 * {@link io.rdma4j.rdmacore.cm.NativeEventChannel} is {@code struct rdma_event_channel} (a non-blocking
 * descriptor waited on in short slices), {@link io.rdma4j.rdmacore.cm.NativeCmId} is
 * {@code struct rdma_cm_id}, {@link io.rdma4j.rdmacore.cm.NativeCmEvent} one event copied into Java until it
 * is acknowledged; the functions are bound once, with errno captured, in {@code Rdmacm}, and addresses
 * cross as Linux's {@code sockaddr} in {@code SockAddr}.
 * <p>
 * <b>Arrows.</b> This package implements {@code io.rdma4j.cm} (using {@code io.rdma4j.verbs} and
 * {@code io.rdma4j.spi}'s {@code Counted}) and sits above the verbs objects: it uses
 * {@code io.rdma4j.rdmacore} (an id's device context, which it adopts from librdmacm, and the PDs, CQs, QPs
 * and SRQs an id's QP is made with, plus the library, errno and struct helpers) and {@code abi} for the
 * structs. The verbs objects never import it; {@code provider} creates its channels.
 */
package io.rdma4j.rdmacore.cm;
