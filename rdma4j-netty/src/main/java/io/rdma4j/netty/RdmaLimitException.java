package io.rdma4j.netty;

import java.io.IOException;

/**
 * A connection's limit was reached: its outbound buffer is full ({@link RdmaChannelOption#MAX_OUTBOUND_BYTES}),
 * which fails the write, or its peer withheld credits too long ({@link RdmaChannelOption#CREDIT_TIMEOUT_MILLIS}),
 * which fails the connection. The message names the limit and its value.
 */
public final class RdmaLimitException extends IOException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message the limit and what passed it.
     */
    public RdmaLimitException(final String message)
    {
        super(message);
    }
}
