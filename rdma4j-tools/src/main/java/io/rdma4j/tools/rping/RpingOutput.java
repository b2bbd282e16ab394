package io.rdma4j.tools.rping;

import java.io.PrintWriter;

/**
 * rping's three kinds of lines, written whole and flushed at once because the main, CM and CQ
 * threads all print: results on stdout, complaints on stderr, and with {@code -d} the debug
 * trace on stdout as rping's DEBUG_LOG does.
 */
final class RpingOutput
{
    private final PrintWriter out;
    private final PrintWriter err;
    private final boolean debug;

    RpingOutput(final PrintWriter out, final PrintWriter err, final boolean debug)
    {
        this.out = out;
        this.err = err;
        this.debug = debug;
    }

    void out(final String format, final Object... args)
    {
        line(out, format, args);
    }

    void err(final String format, final Object... args)
    {
        line(err, format, args);
    }

    void debug(final String format, final Object... args)
    {
        if (debug)
        {
            line(out, format, args);
        }
    }

    private void line(final PrintWriter to, final String format, final Object... args)
    {
        // one lock for both writers: a child JVM's test merges them into one stream
        synchronized (this)
        {
            to.println(args.length == 0 ? format : String.format(format, args));
            to.flush();
        }
    }
}
