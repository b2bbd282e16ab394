/**
 * Reliable multicast in Aeron's shape over rdma4j's public API: a {@link io.rdma4j.rmcast.Publication}
 * ({@code offer}, {@code tryClaim}) per publisher session, a {@link io.rdma4j.rmcast.Subscription}
 * ({@code poll(handler, limit)}) that delivers every session's messages whole and in order, or says which
 * fragments it lost ({@link io.rdma4j.rmcast.SubscriptionListener#onUnrecoverableLoss}).
 * <p>
 * The data goes once to a UD multicast group joined through the connection manager, in frames of at most the
 * path MTU ({@link io.rdma4j.rmcast.protocol.FrameHeader}). Each frame is sent from its slot in the
 * publisher's retransmit window, registered for REMOTE_READ; a subscriber that sees a gap fetches the missing
 * slots itself with RDMA READ over an RC connection to the publisher, so a repair costs the publisher no CPU.
 * The subscriber reports its position by RDMA WRITE into the publisher's status array, which min or max flow
 * control reads.
 */
package io.rdma4j.rmcast;
