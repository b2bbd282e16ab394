package io.rdma4j.cm.ep;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

/**
 * {@code rdma_getaddrinfo} failed: the name or service did not resolve. Besides the errno (EADDRNOTAVAIL for a
 * name, EINVAL for a service) it keeps getaddrinfo's own code and text, which librdmacm's tools print.
 */
public final class AddrInfoException extends RdmaException
{
    /** getaddrinfo's EAI_NONAME: "Name or service not known". */
    public static final int EAI_NONAME = -2;
    /** getaddrinfo's EAI_SERVICE: "Servname not supported for ai_socktype". */
    public static final int EAI_SERVICE = -8;

    private static final long serialVersionUID = 1L;

    private final int gaiCode;
    private final String gaiMessage;

    AddrInfoException(final Errno errno, final int gaiCode, final String gaiMessage, final String message)
    {
        super(errno, message);
        this.gaiCode = gaiCode;
        this.gaiMessage = gaiMessage;
    }

    /**
     * @return getaddrinfo's return value, e.g. {@link #EAI_NONAME}.
     */
    public int gaiCode()
    {
        return gaiCode;
    }

    /**
     * @return what {@code gai_strerror} says for it.
     */
    public String gaiMessage()
    {
        return gaiMessage;
    }
}
