package io.rdma4j.verbs;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * A protection domain ({@code struct ibv_pd}): memory regions, queue pairs, address handles and
 * shared receive queues made in one PD can work only with each other.
 */
public interface ProtectionDomain extends AutoCloseable
{
    /**
     * @return the context the PD belongs to.
     */
    Context context();

    /**
     * Register memory ({@code ibv_reg_mr}). The region lives no longer than the memory: closing the
     * segment's arena deregisters it before the arena frees the memory, and memory of an automatic arena
     * stays allocated while the region can reach it, so the device never touches freed memory.
     *
     * @param segment native memory of a shared, automatic or global arena (heap segments have no stable
     *                address; a confined arena frees its first allocation before the region could be
     *                deregistered, and the software device cannot reach it from its own thread).
     * @param access  access rights; REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE too.
     * @return the memory region with its lkey and rkey.
     * @throws RdmaException EINVAL for a heap segment, a confined arena's, a closed arena's, an empty one,
     *                       or an access combination the man page forbids; ENOMEM beyond max_mr.
     */
    MemoryRegion regMr(MemorySegment segment, Set<AccessFlag> access);

    /**
     * Create a queue pair ({@code ibv_create_qp}) in the RESET state.
     *
     * @param initAttr type, CQs, SRQ and capabilities.
     * @return the queue pair.
     * @throws RdmaException EINVAL if a capability is above the device's limit (the message
     *                       names it), ENOMEM beyond max_qp.
     */
    QueuePair createQp(QpInitAttr initAttr);

    /**
     * Create an address handle ({@code ibv_create_ah}).
     *
     * @param attr the address vector.
     * @return the address handle.
     */
    AddressHandle createAh(AhAttr attr);

    /**
     * An address handle that answers a UD message ({@code ibv_create_ah_from_wc}).
     *
     * @param wc      the receive completion.
     * @param grh     the first 40 bytes of the receive buffer (the GRH slot).
     * @param portNum the port to answer from.
     * @return the address handle.
     * @see Context#initAhFromWc
     */
    default AddressHandle createAhFromWc(final WorkCompletion wc, final java.lang.foreign.MemorySegment grh,
        final int portNum)
    {
        return createAh(context().initAhFromWc(portNum, wc, grh));
    }

    /**
     * Create a shared receive queue ({@code ibv_create_srq}).
     *
     * @param attr sizes and limit.
     * @return the SRQ.
     */
    SharedReceiveQueue createSrq(SrqAttr attr);

    /**
     * Deallocate the PD ({@code ibv_dealloc_pd}).
     *
     * @throws RdmaException EBUSY while memory regions, QPs, AHs or SRQs of it exist.
     */
    @Override
    void close();
}
