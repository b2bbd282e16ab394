package io.rdma4j.verbs;

import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An open device ({@code struct ibv_context}): the root of every other verbs object.
 * Closing it while objects made from it live fails with EBUSY.
 */
public interface Context extends AutoCloseable
{
    /**
     * @return the device.
     */
    Device device();

    /**
     * @return the device's attributes ({@code ibv_query_device}).
     */
    DeviceAttr queryDevice();

    /**
     * @param portNum port, from 1.
     * @return the port's attributes ({@code ibv_query_port}).
     * @throws RdmaException EINVAL for a port the device does not have.
     */
    PortAttr queryPort(int portNum);

    /**
     * @param portNum port, from 1.
     * @param index   GID table index.
     * @return the GID ({@code ibv_query_gid}); on RoCEv2 index 0 is the device's IP address.
     */
    Gid queryGid(int portNum, int index);

    /**
     * @return a new protection domain ({@code ibv_alloc_pd}).
     */
    ProtectionDomain allocPd();

    /**
     * @return a new completion channel ({@code ibv_create_comp_channel}).
     */
    CompletionChannel createCompChannel();

    /**
     * Create a completion queue ({@code ibv_create_cq}).
     *
     * @param cqe        at least this many entries (the device may give more).
     * @param channel    the channel its events go to, or null.
     * @param compVector completion vector (0).
     * @return the CQ.
     * @throws RdmaException EINVAL if cqe is below 1 or above the device's max_cqe.
     */
    CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector);

    /**
     * Wait for the next asynchronous event ({@code ibv_get_async_event}).
     *
     * @param timeout how long to wait; 0 does not wait.
     * @param unit    the timeout's unit.
     * @return the event, or null on timeout.
     * @throws InterruptedException if interrupted while waiting.
     */
    AsyncEvent getAsyncEvent(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * @return the device's counters by name, read now (rxe's {@code hw_counters} names, plus a
     * drop counter per cause).
     */
    Map<String, Long> counters();

    /**
     * The address vector that answers a UD message ({@code ibv_init_ah_from_wc}): its sender's GID
     * as destination, the local GID it was sent to as source, its hop limit and traffic class.
     *
     * @param portNum the port to answer from.
     * @param wc      the receive completion.
     * @param grh     the first 40 bytes of the receive buffer (the GRH slot).
     * @return the address vector.
     * @throws RdmaException EINVAL without a GRH, for a message sent to a multicast group, or one
     *                       sent to a GID this port does not have.
     */
    default AhAttr initAhFromWc(final int portNum, final WorkCompletion wc, final java.lang.foreign.MemorySegment grh)
    {
        return ReplyAddress.of(this, portNum, wc, grh);
    }

    /**
     * @return who makes the device's completions, and so what polling its CQs busy buys; {@link ProgressMode#DEVICE}
     *         unless the engine says otherwise.
     */
    default ProgressMode progressMode()
    {
        return ProgressMode.DEVICE;
    }

    /**
     * Close the context ({@code ibv_close_device}).
     *
     * @throws RdmaException EBUSY while PDs, CQs or channels made from it are open.
     */
    @Override
    void close();
}
