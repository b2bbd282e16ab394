package io.rdma4j.tools.cmtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * cmtime's out-of-band TCP connection, on the same port number as the CM's: the two sides meet at each phase
 * (start, connected, disconnected) by one byte each way, the phase's number, so that neither times the other's
 * waiting. The client sends first ({@code oob_sendrecv}), the server answers ({@code oob_recvsend}).
 */
final class Oob implements AutoCloseable
{
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private Oob(final Socket socket) throws IOException
    {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    static Oob accept(final InetAddress bind, final int port) throws IOException
    {
        try (ServerSocket listener = new ServerSocket())
        {
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(bind, port));
            return new Oob(listener.accept());
        }
    }

    /**
     * Connect to the server's out-of-band port. rdma4j: a refused connection is tried again for up to
     * {@code patienceMs}, so a client started together with its server (a script, a test) waits for it to listen.
     */
    static Oob connect(final InetAddress server, final int port, final long patienceMs)
        throws IOException, InterruptedException
    {
        final long deadline = System.nanoTime() + patienceMs * 1_000_000L;
        while (true)
        {
            try
            {
                return new Oob(new Socket(server, port));
            }
            catch (final java.net.ConnectException refused)
            {
                if (System.nanoTime() > deadline)
                {
                    throw refused;
                }
                Thread.sleep(50);
            }
        }
    }

    /** Client: send the phase, then wait for the server's echo of it. */
    void sendRecv(final int phase) throws IOException
    {
        out.write(phase);
        out.flush();
        expect(phase);
    }

    /** Server: wait for the client's phase, then echo it. */
    void recvSend(final int phase) throws IOException
    {
        expect(phase);
        out.write(phase);
        out.flush();
    }

    private void expect(final int phase) throws IOException
    {
        final int got = in.read();
        if (got != phase)
        {
            throw new IOException(got < 0 ? "the peer closed the out-of-band connection" :
                "out of step with the peer: phase " + got + " where " + phase + " was due");
        }
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }
}
