/**
 * The wire and memory layouts of reliable multicast: the frame header every fragment and heartbeat carries
 * (the same bytes on the wire, in the publisher's retransmit window and in a subscriber's repair ring), and
 * the private data the repair connection's request and accept carry. Imports nothing of the package above.
 */
package io.rdma4j.rmcast.protocol;
