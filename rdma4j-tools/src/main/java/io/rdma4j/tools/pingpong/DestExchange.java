package io.rdma4j.tools.pingpong;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The TCP handshake of rdma-core's pingpong tools, byte for byte, so either side can be the C
 * tool: the client connects and sends its {@link PingPongDest} message(s) first; the server reads
 * them, connects its QP(s) to the client, and answers with its own; the client then sends
 * {@code "done"} with its NUL (5 bytes) and both close. srq_pingpong sends 256 messages each way
 * (its MAX_QP), the unused ones zeroed.
 */
public final class DestExchange
{
    /** What the client sends last, NUL included, as rdma-core writes {@code sizeof "done"} bytes. */
    static final byte[] DONE = "done\0".getBytes(StandardCharsets.US_ASCII);

    private DestExchange()
    {
    }

    /**
     * What the server does between reading the client's addresses and sending its own:
     * rdma-core connects its QPs (RC/UC: to RTR and RTS; UD: RTS and the address handle) there.
     */
    @FunctionalInterface
    public interface Connector
    {
        /**
         * @param remote the client's addresses.
         * @throws PingPongException with rdma-core's message if the QPs cannot be connected.
         */
        void connect(List<PingPongDest> remote) throws PingPongException;
    }

    /**
     * The client side ({@code pp_client_exch_dest}).
     *
     * @param serverName host name or address of the server.
     * @param port       its TCP port.
     * @param mine       this side's addresses, one message each.
     * @return the server's addresses, as many as were sent.
     * @throws PingPongException with rdma-core's message when the server cannot be reached or the
     *                           exchange breaks.
     */
    public static List<PingPongDest> client(final String serverName, final int port, final List<PingPongDest> mine)
        throws PingPongException
    {
        final InetAddress[] addresses;
        try
        {
            addresses = InetAddress.getAllByName(serverName);
        }
        catch (final UnknownHostException ex)
        {
            throw new PingPongException("Name or service not known for " + serverName + ":" + port, ex);
        }
        Socket socket = null;
        // getaddrinfo may give several addresses; rdma-core tries each until one connects.
        for (final InetAddress address : addresses)
        {
            final Socket attempt = new Socket();
            try
            {
                attempt.connect(new InetSocketAddress(address, port));
                socket = attempt;
                break;
            }
            catch (final IOException ex)
            {
                closeQuietly(attempt);
            }
        }
        if (socket == null)
        {
            throw new PingPongException("Couldn't connect to " + serverName + ":" + port);
        }
        try (Socket s = socket)
        {
            final OutputStream out = s.getOutputStream();
            final InputStream in = s.getInputStream();
            try
            {
                out.write(encode(mine));
                out.flush();
            }
            catch (final IOException ex)
            {
                throw new PingPongException("Couldn't send local address", ex);
            }
            final List<PingPongDest> remote = new ArrayList<>(mine.size());
            final byte[] msg = new byte[PingPongDest.WIRE_SIZE];
            try
            {
                for (int i = 0; i < mine.size(); i++)
                {
                    final int n = in.readNBytes(msg, 0, msg.length);
                    if (n != msg.length)
                    {
                        throw new IOException("connection closed after " + n + " of " + msg.length + " bytes");
                    }
                    remote.add(PingPongDest.fromWire(msg, n));
                }
                out.write(DONE);
                out.flush();
            }
            catch (final IOException | IllegalArgumentException ex)
            {
                throw new PingPongException("client read/write: " + ex.getMessage() + System.lineSeparator() +
                    "Couldn't read/write remote address", ex);
            }
            return remote;
        }
        catch (final IOException ex)
        {
            // Only close() can get here; the exchange itself is complete.
            throw new PingPongException("client close: " + ex.getMessage(), ex);
        }
    }

    /**
     * Bind the server's listening socket ({@code pp_server_exch_dest}'s bind and listen): every
     * address, SO_REUSEADDR, as rdma-core's {@code AI_PASSIVE} lookup does. Done before the tool
     * prints its local address, so that line also tells a waiting client the port is open.
     *
     * @param port the TCP port.
     * @return the listening socket.
     * @throws PingPongException "Couldn't listen to port N" if it cannot be bound.
     */
    public static ServerSocket listen(final int port) throws PingPongException
    {
        ServerSocket listener = null;
        try
        {
            listener = new ServerSocket();
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(port), 1);
            return listener;
        }
        catch (final IOException ex)
        {
            if (listener != null)
            {
                closeQuietly(listener);
            }
            throw new PingPongException("Couldn't listen to port " + port, ex);
        }
    }

    /**
     * The server side after {@link #listen}: accept one client, read its addresses, connect, send
     * ours, wait for its "done".
     *
     * @param listener  the bound socket; closed once a client is accepted, as rdma-core does.
     * @param mine      this side's addresses, one message each.
     * @param connector what to do with the client's addresses before answering.
     * @return the client's addresses.
     * @throws PingPongException with rdma-core's message on any failure.
     */
    public static List<PingPongDest> server(
        final ServerSocket listener, final List<PingPongDest> mine, final Connector connector)
        throws PingPongException
    {
        final Socket socket;
        try (ServerSocket l = listener)
        {
            socket = l.accept();
        }
        catch (final IOException ex)
        {
            throw new PingPongException("accept() failed", ex);
        }
        try (Socket s = socket)
        {
            final InputStream in = s.getInputStream();
            final OutputStream out = s.getOutputStream();
            final List<PingPongDest> remote = new ArrayList<>(mine.size());
            final byte[] msg = new byte[PingPongDest.WIRE_SIZE];
            for (int i = 0; i < mine.size(); i++)
            {
                int n = 0;
                try
                {
                    n = in.readNBytes(msg, 0, msg.length);
                    if (n != msg.length)
                    {
                        throw new IOException("connection closed");
                    }
                    remote.add(PingPongDest.fromWire(msg, n));
                }
                catch (final IOException | IllegalArgumentException ex)
                {
                    throw new PingPongException("server read: " + ex.getMessage() + System.lineSeparator() + n + "/" +
                        msg.length + ": Couldn't read remote address" + (mine.size() > 1 ? " [" + i + "]" : ""), ex);
                }
            }
            try
            {
                connector.connect(remote);
            }
            catch (final PingPongException ex)
            {
                throw new PingPongException(ex.getMessage() + System.lineSeparator() + "Couldn't connect to remote QP",
                    ex);
            }
            try
            {
                out.write(encode(mine));
                out.flush();
                // rdma-core reads once into its 52-byte buffer and wants exactly sizeof "done" back.
                final int n = in.readNBytes(msg, 0, msg.length);
                if (n != DONE.length)
                {
                    throw new IOException("read " + n + " bytes where \"done\" (" + DONE.length + ") was expected");
                }
            }
            catch (final IOException ex)
            {
                throw new PingPongException("Couldn't send/recv local address", ex);
            }
            return remote;
        }
        catch (final IOException ex)
        {
            throw new PingPongException("server close: " + ex.getMessage(), ex);
        }
    }

    private static byte[] encode(final List<PingPongDest> dests)
    {
        // One write for all messages: the C tools read each message whole, and one segment is the
        // likeliest way to keep a message from being split.
        final byte[] all = new byte[dests.size() * PingPongDest.WIRE_SIZE];
        for (int i = 0; i < dests.size(); i++)
        {
            System.arraycopy(dests.get(i).toWire(), 0, all, i * PingPongDest.WIRE_SIZE, PingPongDest.WIRE_SIZE);
        }
        return all;
    }

    private static void closeQuietly(final AutoCloseable closeable)
    {
        try
        {
            closeable.close();
        }
        catch (final Exception ex)
        {
            // Already failing for a better reason; the close error adds nothing.
        }
    }
}
