package io.rdma4j.netty;

import io.netty.channel.IoEvent;

/**
 * What an {@link RdmaIoHandler} hands a registration's {@link RdmaIoHandle}: its CQ has completions to take
 * ({@link CqReady}), or the connection manager reported on one of its ids ({@link CmNotice}).
 */
sealed interface RdmaIoEvent extends IoEvent permits CqReady, CmNotice
{
}
