package io.rdma4j.tools.ep;

import io.rdma4j.cm.ep.Endpoint;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.tools.common.Closing;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * What rdma_server and rdma_client share: the one-message buffers and their regions, the QP both ask for, the
 * waits for completions and the C tools' way of reporting a failed call ({@code perror}: the call's name and why).
 */
final class EpRun implements AutoCloseable
{
    /** The size of each message, as the C tools' {@code send_msg} and {@code recv_msg}. */
    static final int MESSAGE_SIZE = 16;
    /** The port both tools use by default. */
    static final String PORT = "7471";
    /** How long rdma_server waits for an accepted request to be established, by default, in seconds. */
    static final String HANDSHAKE_TIMEOUT = "10";

    private final String tool;
    private final PrintWriter out;
    private final PrintWriter err;
    private final int timeoutSeconds;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment sendMsg = arena.allocate(MESSAGE_SIZE);
    private final MemorySegment recvMsg = arena.allocate(MESSAGE_SIZE);
    private final WorkCompletion wc = new WorkCompletion();
    private MemoryRegion recvMr;
    private MemoryRegion sendMr;
    private int sendFlags;

    EpRun(final String tool, final PrintWriter out, final PrintWriter err, final int timeoutSeconds)
    {
        this.tool = tool;
        this.out = out;
        this.err = err;
        this.timeoutSeconds = timeoutSeconds;
    }

    /**
     * @return the QP attributes both tools create their endpoints with: one of everything, 16 bytes inline, every
     *     send signaled.
     */
    static QpInitAttr qpAttr()
    {
        return new QpInitAttr(QpType.RC, null, null, null, new QpCap(1, 1, 1, 1, MESSAGE_SIZE), true);
    }

    MemorySegment sendMsg()
    {
        return sendMsg;
    }

    MemorySegment recvMsg()
    {
        return recvMsg;
    }

    /**
     * What both tools do before connecting or accepting: choose the send flags, {@code rdma_reg_msgs} the two
     * buffers, {@code rdma_post_recv} the one receive.
     *
     * @param ep the endpoint, with its QP.
     * @return 0, or what {@link #failed} returns for the call that failed.
     */
    int prepare(final Endpoint ep)
    {
        chooseSendFlags(ep);
        try
        {
            register(ep);
        }
        catch (final RdmaException ex)
        {
            return failed("rdma_reg_msgs", ex);
        }
        try
        {
            postRecv(ep);
        }
        catch (final RdmaException ex)
        {
            return failed("rdma_post_recv", ex);
        }
        return 0;
    }

    /**
     * Inline sends if the QP takes 16 bytes inline, else registered sends, saying so as the C tools do.
     */
    void chooseSendFlags(final Endpoint ep)
    {
        if (ep.qp().cap().maxInlineData() >= MESSAGE_SIZE)
        {
            sendFlags = SendFlags.INLINE;
        }
        else
        {
            say(out, "%s: device doesn't support IBV_SEND_INLINE, using sge sends", tool);
        }
    }

    /**
     * Register the receive buffer, and the send buffer unless sends are inline.
     */
    void register(final Endpoint ep)
    {
        recvMr = ep.regMsgs(recvMsg);
        if ((sendFlags & SendFlags.INLINE) == 0)
        {
            sendMr = ep.regMsgs(sendMsg);
        }
    }

    void postRecv(final Endpoint ep)
    {
        ep.postRecv(0, recvMsg, recvMr);
    }

    void postSend(final Endpoint ep)
    {
        ep.postSend(0, sendMsg, sendMr, sendFlags);
    }

    /**
     * rdma_get_send_comp, or rdma_get_recv_comp.
     *
     * @return 0, or -1 after saying why (no completion in --timeout, or one in error).
     */
    int completion(final Endpoint ep, final boolean send) throws InterruptedException
    {
        final String call = send ? "rdma_get_send_comp" : "rdma_get_recv_comp";
        final long timeout = timeoutSeconds > 0 ? timeoutSeconds : -1;
        final boolean got = send ? ep.getSendComp(wc, timeout, TimeUnit.SECONDS) :
            ep.getRecvComp(wc, timeout, TimeUnit.SECONDS);
        if (!got)
        {
            say(err, "%s: ETIMEDOUT: no completion within %d s", call, timeoutSeconds);
            return -1;
        }
        if (!wc.isSuccess())
        {
            say(err, "%s: the completion failed: %s", call, wc.status().description());
            return -1;
        }
        return 0;
    }

    /**
     * perror: the call and the failure.
     *
     * @return -1, the C tools' return value for it.
     */
    int failed(final String call, final RdmaException ex)
    {
        say(err, "%s: %s", call, ex.getMessage());
        return -1;
    }

    void disconnect(final Endpoint ep) throws InterruptedException
    {
        try
        {
            ep.disconnect();
        }
        catch (final RdmaException ex)
        {
            failed("rdma_disconnect", ex);
        }
    }

    /** What a tool runs between its start and end lines. */
    @FunctionalInterface
    interface Body
    {
        /**
         * @return the C tool's return value: 0, or a negative errno or getaddrinfo code.
         * @throws InterruptedException if interrupted while waiting.
         */
        int run() throws InterruptedException;
    }

    /**
     * The C tools' main: "TOOL: start", the run, "TOOL: end N"; an interrupted run ends -EINTR.
     *
     * @param out  where the two lines go.
     * @param tool the tool's name.
     * @param body the run.
     * @return N as an exit status (0..255), as the C tools' {@code main} returns it.
     */
    static int startToEnd(final PrintWriter out, final String tool, final Body body)
    {
        say(out, "%s: start", tool);
        int ret;
        try
        {
            ret = body.run();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            ret = -Errno.EINTR.code();
        }
        say(out, "%s: end %d", tool, ret);
        return ret & 0xFF;
    }

    /**
     * {@code rdma_post_send} of the send message, then its completion.
     *
     * @param ep the connected endpoint.
     * @return 0, or what {@link #failed} or {@link #completion} returns.
     * @throws InterruptedException if interrupted while waiting.
     */
    int sendMessage(final Endpoint ep) throws InterruptedException
    {
        try
        {
            postSend(ep);
            return completion(ep, true);
        }
        catch (final RdmaException ex)
        {
            return failed("rdma_post_send", ex);
        }
    }

    /**
     * {@code rdma_destroy_ep}, a failure said on stderr.
     *
     * @param ep the endpoint, or null.
     */
    void destroy(final Endpoint ep)
    {
        Closing.closeReporting(ep, m -> say(err, "rdma_destroy_ep: %s", m));
    }

    /**
     * The regions (rdma_dereg_mr), then the memory; the endpoints are the caller's to close after.
     */
    @Override
    public void close()
    {
        deregister();
        arena.close();
    }

    /**
     * The regions alone (rdma_dereg_mr), before the endpoint they were registered on is destroyed and the buffers
     * are registered on the next.
     */
    void deregister()
    {
        Closing.closeReporting(sendMr, m -> say(err, "rdma_dereg_mr: %s", m));
        Closing.closeReporting(recvMr, m -> say(err, "rdma_dereg_mr: %s", m));
        sendMr = null;
        recvMr = null;
    }

    static void say(final PrintWriter to, final String format, final Object... args)
    {
        to.println(args.length == 0 ? format : String.format(format, args));
        to.flush();
    }
}
