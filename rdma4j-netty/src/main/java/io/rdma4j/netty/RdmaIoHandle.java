package io.rdma4j.netty;

import io.netty.channel.IoHandle;

/**
 * What the rdma4j channels register with an {@link RdmaIoHandler}.
 */
interface RdmaIoHandle extends IoHandle
{
    /**
     * Close the channel at once: its event loop is shutting down.
     */
    void closeNow();
}
