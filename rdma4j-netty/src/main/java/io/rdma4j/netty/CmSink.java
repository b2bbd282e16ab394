package io.rdma4j.netty;

/**
 * Whatever a connection-manager id's context is in this transport: the channel that owns the id. The event loop
 * whose event channel reports the event calls it; the sink moves the work to its own event loop when that is
 * another.
 */
interface CmSink
{
    /**
     * @param notice the event, already acknowledged.
     */
    void cmEvent(CmNotice notice);
}
