package io.rdma4j.soft.transport;

/**
 * Work a transport owes once the batch of packets being received is handled ({@link
 * TransportDevice#batchEndOwed}): the responder's coalesced ACK and the next slice of the READ responses it
 * owes. The device calls only the transports that asked, so a batch costs what its packets cost, not a
 * visit to every QP.
 */
@FunctionalInterface
public interface BatchEndWork
{
    /**
     * The batch is handled: send what is owed. Runs on the receiving thread, under the device's receive lock.
     */
    void onBatchEnd();
}
