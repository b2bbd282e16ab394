package io.rdma4j.tools.perf;

/**
 * A run that cannot go on: a failed completion, a peer that stopped answering, a refused size.
 * The message is the line {@code rdma4j perf} prints.
 */
public final class PerfException extends Exception
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, as a sentence naming the figure or state at fault.
     */
    public PerfException(final String message)
    {
        super(message);
    }

    /**
     * @param message what went wrong.
     * @param cause   the underlying failure.
     */
    public PerfException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
