package io.rdma4j.soft.wire;

/**
 * The ICRC of a packet built without it, computed by whoever sends the packet only when its path needs one: a
 * datagram for the network does, a record for a same-host peer's owner-only inbox does not (only processes of
 * this user can write there, so a CRC over memory copies protects nothing, and it was a sixth of a same-host
 * packet's cost at each end).
 */
@FunctionalInterface
public interface DeferredIcrc
{
    /**
     * Compute the ICRC and write it into the packet's last four bytes, in the sender's memory, before the
     * packet is copied out.
     *
     * @return false if the packet's payload can no longer be read (its memory was closed): nothing is sent then.
     */
    boolean generate();
}
