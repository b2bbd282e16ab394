package io.rdma4j.tools.pingpong;

/**
 * A pingpong run that failed: the message is what rdma-core's tool would print on stderr at that
 * point (one or more lines), and the tool exits 1 after printing it.
 */
public final class PingPongException extends Exception
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message the lines for stderr, as rdma-core words them.
     */
    public PingPongException(final String message)
    {
        super(message);
    }

    /**
     * @param message the lines for stderr.
     * @param cause   the failure underneath, kept for debugging.
     */
    public PingPongException(final String message, final Throwable cause)
    {
        super(message, cause);
    }

    /**
     * @param message the line rdma-core prints.
     * @param cause   what rdma4j knows more, added on a line of its own.
     * @return the failure, with the cause's message after rdma-core's.
     */
    static PingPongException withCause(final String message, final Exception cause)
    {
        return new PingPongException(message + System.lineSeparator() + "  (rdma4j: " + cause.getMessage() + ")",
            cause);
    }
}
