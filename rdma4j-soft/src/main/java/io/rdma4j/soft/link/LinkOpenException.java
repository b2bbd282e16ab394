package io.rdma4j.soft.link;

import io.rdma4j.verbs.Errno;

/**
 * A link could not be opened, with the errno that says why: the device reports it as the failure of its
 * {@code open} (an address in use is not an address this host lacks, nor a JVM without native access).
 */
public final class LinkOpenException extends IllegalStateException
{
    private final transient Errno errno;

    /**
     * @param errno   why, as errno would say it.
     * @param message the sentence naming the address, port or setting at fault.
     */
    public LinkOpenException(final Errno errno, final String message)
    {
        super(message);
        this.errno = errno;
    }

    /**
     * @param errno   why.
     * @param message the sentence.
     * @param cause   what the JDK threw.
     */
    public LinkOpenException(final Errno errno, final String message, final Throwable cause)
    {
        super(message, cause);
        this.errno = errno;
    }

    /**
     * @return why the link could not be opened.
     */
    public Errno errno()
    {
        return errno;
    }
}
