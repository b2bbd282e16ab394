package io.rdma4j.tools.perf.perftest;

import java.io.IOException;

/**
 * The peer broke perftest's exchange: an old or foreign version, a message that does not parse, a GID of the
 * other IP family. An {@link IOException}, as the connection it arrived on failing would be.
 */
public final class PerftestException extends IOException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what was wrong, and with what.
     */
    public PerftestException(final String message)
    {
        super(message);
    }
}
