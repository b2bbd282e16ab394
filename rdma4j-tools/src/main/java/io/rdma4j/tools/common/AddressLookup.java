package io.rdma4j.tools.common;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * The address lookup of librdmacm's example tools (udaddy, cmatose): rdma_getaddrinfo on a name or
 * literal, read the way their {@code -f address_format} says, failing with getaddrinfo's code and text.
 */
public final class AddressLookup
{
    /** getaddrinfo's "Name or service not known". */
    public static final int EAI_NONAME = -2;
    /** getaddrinfo's "Address family for hostname not supported". */
    public static final int EAI_FAMILY = -6;

    private AddressLookup()
    {
    }

    /**
     * @param format -f: name (default, also for null), ip, ipv6 or gid; anything else warns and reads as name.
     * @param host   the name or literal.
     * @param err    where the warning for an unknown format goes.
     * @return the address.
     * @throws Failure EAI_FAMILY for gid (RoCE has no AF_IB), EAI_NONAME for a name that does not resolve or,
     *                 with ip/ipv6, for anything but a literal.
     */
    public static InetAddress lookup(final String format, final String host, final PrintWriter err) throws Failure
    {
        final String lower = format == null ? "name" : format.toLowerCase(Locale.ROOT);
        if (lower.startsWith("gid"))
        {
            throw new Failure(EAI_FAMILY, "Address family for hostname not supported");
        }
        if (!lower.startsWith("ip") && !lower.startsWith("name"))
        {
            err.println("Warning: unknown address format");
            err.flush();
        }
        try
        {
            // -f ip (and ipv6, which the tools read as "ip") takes numeric addresses only
            return lower.startsWith("ip") ? InetAddress.ofLiteral(host) : InetAddress.getByName(host);
        }
        catch (final IllegalArgumentException | UnknownHostException ex)
        {
            throw new Failure(EAI_NONAME, "Name or service not known");
        }
    }

    /**
     * A name that did not resolve, with getaddrinfo's code (the tools' return value) and text.
     */
    public static final class Failure extends Exception
    {
        private static final long serialVersionUID = 1L;

        private final int code;

        Failure(final int code, final String message)
        {
            super(message);
            this.code = code;
        }

        /**
         * @return getaddrinfo's negative EAI_* code.
         */
        public int code()
        {
            return code;
        }
    }
}
