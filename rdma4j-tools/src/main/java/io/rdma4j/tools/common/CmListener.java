package io.rdma4j.tools.common;

import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.verbs.RdmaException;

import java.io.PrintWriter;
import java.net.InetSocketAddress;

/**
 * The listening id of librdmacm's example servers (udaddy, cmatose): created, bound and listening, each
 * failure reported as those tools word it; with {@code --debug}, a line that says where it listens, which
 * is what a test or a lab scenario waits for before it starts the client.
 */
public final class CmListener
{
    private CmListener()
    {
    }

    /**
     * @param channel the tool's event channel.
     * @param context the listening id's context.
     * @param space   the port space.
     * @param bind    the address and port to listen on.
     * @param tool    the name the lines start with.
     * @param debug   true to say where it listens, on {@code out}.
     * @param out     the tool's output.
     * @param err     where failures go.
     * @return the listening id, or null when a step failed (and the id, if made, is closed).
     */
    public static CmId listen(final EventChannel channel, final Object context, final PortSpace space,
        final InetSocketAddress bind, final String tool, final boolean debug, final PrintWriter out,
        final PrintWriter err)
    {
        final CmId id;
        try
        {
            id = channel.createId(context, space);
        }
        catch (final RdmaException ex)
        {
            report(err, tool + ": listen request failed", ex);
            return null;
        }
        String step = "bind address failed";
        try
        {
            id.bindAddr(bind);
            step = "failure trying to listen";
            id.listen(0);
        }
        catch (final RdmaException ex)
        {
            report(err, tool + ": " + step, ex);
            Closing.closeReporting(id, message -> report(err, tool + ": destroying the listening id", message));
            return null;
        }
        if (debug)
        {
            final InetSocketAddress local = id.localAddress() != null ? id.localAddress() : bind;
            out.printf("%s: listening on %s:%d%n", tool, local.getAddress().getHostAddress(), local.getPort());
            out.flush();
        }
        return id;
    }

    private static void report(final PrintWriter err, final String what, final Object why)
    {
        err.printf("%s: %s%n", what, why instanceof Exception ex ? ex.getMessage() : why);
        err.flush();
    }
}
