package io.rdma4j.tools.perf;

import io.rdma4j.tools.perf.perftest.PerftestVersion;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * The TCP connection beside the measurement, as perftest's default (non rdma_cm) mode has: the two
 * sides swap their {@link PerfEndpoint}s over it, meet at barriers between phases, and the client
 * hands its result lines to the server so both print them. Nothing on it is timed.
 */
public final class ControlChannel implements AutoCloseable
{
    /** How long either side waits for the other at a barrier before giving up. */
    private static final int TIMEOUT_MS = (int)TimeUnit.SECONDS.toMillis(120);
    private static final int CONNECT_TRIES = 50;
    /** How long a server waits for the rest of what may be a perftest client's version field. */
    private static final int SNIFF_MS = 1000;

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    private ControlChannel(final Socket socket) throws IOException
    {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(TIMEOUT_MS);
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    }

    /**
     * Bind the server's listening socket; call before telling anyone the server is ready.
     *
     * @param address the local address, or null for every address.
     * @param port    the TCP port.
     * @return the listening socket.
     * @throws IOException if the port is taken.
     */
    public static ServerSocket listen(final InetAddress address, final int port) throws IOException
    {
        final ServerSocket listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(new InetSocketAddress(address, port), 1);
        return listener;
    }

    /**
     * @param listener the bound socket from {@link #listen}.
     * @return the connection of the first client.
     * @throws IOException if accepting fails.
     */
    public static ControlChannel accept(final ServerSocket listener) throws IOException
    {
        return new ControlChannel(listener.accept());
    }

    /**
     * Connect to a server, trying again for a few seconds while it is still starting (perftest's
     * client gives up at once; waiting a little makes scripted runs simpler).
     *
     * @param host the server's host.
     * @param port its TCP port.
     * @return the connection.
     * @throws IOException if the server never answers.
     * @throws InterruptedException if interrupted between tries.
     */
    public static ControlChannel connect(final String host, final int port) throws IOException, InterruptedException
    {
        IOException last = null;
        for (int i = 0; i < CONNECT_TRIES; i++)
        {
            final Socket socket = new Socket();
            try
            {
                socket.connect(new InetSocketAddress(host, port), TIMEOUT_MS);
                return new ControlChannel(socket);
            }
            catch (final IOException ex)
            {
                socket.close();
                last = ex;
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
        throw new IOException("couldn't connect to " + host + ":" + port + ": " + last.getMessage(), last);
    }

    /**
     * @return the stream to write a message to; {@link #flush()} sends it.
     */
    public DataOutputStream out()
    {
        return out;
    }

    /**
     * @return the stream to read the peer's messages from.
     */
    public DataInputStream in()
    {
        return in;
    }

    /**
     * @throws IOException if the connection broke.
     */
    public void flush() throws IOException
    {
        out.flush();
    }

    /**
     * Read the peer's signature ({@code writeUTF}'s form) without waiting for more bytes than this side's own
     * takes: a peer whose first two bytes announce another length cannot be running the same test, and a
     * perftest client (whose version message has no such length) is answered at once, not after the timeout.
     *
     * @param ours this side's signature.
     * @return the peer's signature, or null when its length differs from ours.
     * @throws IOException if the connection broke.
     */
    public String readSignature(final String ours) throws IOException
    {
        final ByteArrayOutputStream encoded = new ByteArrayOutputStream();
        new DataOutputStream(encoded).writeUTF(ours);
        final int length = in.readUnsignedShort();
        if (length != encoded.size() - 2)
        {
            return null;
        }
        final byte[] theirs = new byte[length];
        in.readFully(theirs);
        final ByteArrayOutputStream framed = new ByteArrayOutputStream();
        final DataOutputStream frame = new DataOutputStream(framed);
        frame.writeShort(length);
        frame.write(theirs);
        return new DataInputStream(new ByteArrayInputStream(framed.toByteArray())).readUTF();
    }

    /**
     * Read the peer's first message on rdma4j's exchange, telling a perftest peer from it: perftest writes its
     * version first, in a 16-byte field, where rdma4j writes its signature ({@code writeUTF}'s form, a 2-byte
     * length first). A server reads no signature of another length than its own (see {@link #readSignature}),
     * and waits at most {@value #SNIFF_MS} ms for the rest of a version field; a client reads its server's
     * signature whatever its length.
     *
     * @param ours      this side's signature.
     * @param anyLength true to read a signature of any length (the client), false for one of ours (the server).
     * @return the signature or perftest's version, or neither when the message is something else.
     * @throws IOException if the connection broke.
     */
    public FirstMessage readFirst(final String ours, final boolean anyLength) throws IOException
    {
        final int length = in.readUnsignedShort();
        final int rest = PerftestVersion.BYTES - 2;
        final ByteArrayOutputStream framed = new ByteArrayOutputStream();
        final DataOutputStream frame = new DataOutputStream(framed);
        frame.writeShort(length);
        if (length == utfLength(ours) || anyLength && length < rest)
        {
            final byte[] theirs = new byte[length];
            in.readFully(theirs);
            frame.write(theirs);
            return new FirstMessage(utf(framed.toByteArray()), null);
        }
        final byte[] field = new byte[rest];
        if (!readWithin(field, anyLength ? TIMEOUT_MS : SNIFF_MS))
        {
            return new FirstMessage(null, null);
        }
        frame.write(field);
        final String version = PerftestVersion.recognise(framed.toByteArray());
        if (version != null || !anyLength)
        {
            return new FirstMessage(null, version);
        }
        final byte[] tail = new byte[length - rest];
        in.readFully(tail);
        frame.write(tail);
        return new FirstMessage(utf(framed.toByteArray()), null);
    }

    /**
     * The peer's first message: rdma4j's signature, perftest's version, or (both null) something else.
     *
     * @param signature       the signature of an rdma4j peer, or null.
     * @param perftestVersion the version a perftest peer wrote, or null.
     */
    public record FirstMessage(String signature, String perftestVersion)
    {
    }

    private boolean readWithin(final byte[] into, final int timeoutMs) throws IOException
    {
        socket.setSoTimeout(timeoutMs);
        try
        {
            in.readFully(into);
            return true;
        }
        catch (final SocketTimeoutException | EOFException ex)
        {
            return false;
        }
        finally
        {
            socket.setSoTimeout(TIMEOUT_MS);
        }
    }

    private static int utfLength(final String text) throws IOException
    {
        final ByteArrayOutputStream encoded = new ByteArrayOutputStream();
        new DataOutputStream(encoded).writeUTF(text);
        return encoded.size() - 2;
    }

    private static String utf(final byte[] framed) throws IOException
    {
        return new DataInputStream(new ByteArrayInputStream(framed)).readUTF();
    }

    /**
     * Wait until the peer reaches the same point: each side writes a token and reads the other's.
     *
     * @param token what both sides agree this barrier is, checked so that a protocol slip fails loudly.
     * @throws IOException if the peer left or reached a different barrier.
     */
    public void barrier(final int token) throws IOException
    {
        out.writeInt(token);
        out.flush();
        final int theirs = in.readInt();
        if (theirs != token)
        {
            throw new IOException("control channel out of step: at barrier " + token + " the peer is at " + theirs);
        }
    }

    /**
     * Close the connection.
     *
     * @throws IOException if closing fails.
     */
    @Override
    public void close() throws IOException
    {
        socket.close();
    }
}
