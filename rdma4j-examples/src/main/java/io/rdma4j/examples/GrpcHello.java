package io.rdma4j.examples;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.rdma4j.examples.grpc.GrpcOverRdma;
import io.rdma4j.netty.RdmaIoHandler;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * gRPC's hello-world over RDMA: a gRPC-Java server and client on gRPC's own Netty transport ({@code grpc-netty}),
 * given rdma4j's channels and event loops, in two processes. The client makes a unary call ({@code SayHello})
 * and a bidirectional streaming one ({@code Chat}) and prints the server's greetings, which name the server's
 * process.
 * <p>
 * Usage: {@code GrpcHello [SERVER_ADDRESS CLIENT_ADDRESS]} runs the server in a child JVM on SERVER_ADDRESS
 * (default 127.0.0.1), waits for it to say where it listens, runs the client from CLIENT_ADDRESS (default
 * 127.0.0.2) in this one, then stops the server; it exits 0 if every call was answered. The halves run alone
 * as {@code GrpcHello server ADDRESS [PORT]}, which serves until its standard input ends, and
 * {@code GrpcHello client SERVER PORT LOCAL_ADDRESS}. With the software device each process takes its own
 * loopback address (README, "Addresses").
 */
public final class GrpcHello
{
    /** What the server prints once it accepts calls, before its address: the parent waits for this line. */
    static final String LISTENING = "listening on ";
    private static final List<String> CHAT_NAMES = List.of("Ada", "Grace", "Edsger");
    private static final long START_SECONDS = 60;
    private static final long STOP_SECONDS = 30;

    private GrpcHello()
    {
    }

    /**
     * @param args nothing, {@code SERVER_ADDRESS CLIENT_ADDRESS}, {@code server ADDRESS [PORT]} or
     *             {@code client SERVER PORT LOCAL_ADDRESS}.
     * @throws Exception if a call fails.
     */
    public static void main(final String[] args) throws Exception
    {
        if (args.length >= 2 && "server".equals(args[0]))
        {
            server(InetAddress.getByName(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 0);
        }
        else if (args.length == 4 && "client".equals(args[0]))
        {
            client(new InetSocketAddress(InetAddress.getByName(args[1]), Integer.parseInt(args[2])),
                InetAddress.getByName(args[3]));
        }
        else if (args.length == 0 || args.length == 2)
        {
            System.exit(both(args.length == 0 ? "127.0.0.1" : args[0], args.length == 0 ? "127.0.0.2" : args[1]));
        }
        else
        {
            System.err.println("usage: GrpcHello [SERVER_ADDRESS CLIENT_ADDRESS] | GrpcHello server ADDRESS [PORT] | " +
                "GrpcHello client SERVER PORT LOCAL_ADDRESS");
            System.exit(2);
        }
    }

    private static void server(final InetAddress address, final int port) throws Exception
    {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
        try
        {
            final Server server = GrpcOverRdma.serve(group, new InetSocketAddress(address, port));
            System.out.println("gRPC server in process " + ProcessHandle.current().pid() + " " + LISTENING +
                address.getHostAddress() + " " + server.getPort());
            // the parent (or a user at a terminal) ends the standard input to stop the server
            System.in.transferTo(OutputStream.nullOutputStream());
            server.shutdown();
            if (!server.awaitTermination(STOP_SECONDS, TimeUnit.SECONDS))
            {
                server.shutdownNow();
            }
            System.out.println("gRPC server stopped");
        }
        finally
        {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    private static void client(final InetSocketAddress server, final InetAddress local) throws Exception
    {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        final ManagedChannel channel = GrpcOverRdma.connect(group, server, local);
        try
        {
            System.out.println("gRPC client in process " + ProcessHandle.current().pid() + ", from " +
                local.getHostAddress() + " to " + server.getAddress().getHostAddress() + " " + server.getPort());
            System.out.println("SayHello: " + GrpcOverRdma.sayHello(channel, "world"));
            for (final String greeting : GrpcOverRdma.chat(channel, CHAT_NAMES))
            {
                System.out.println("Chat: " + greeting);
            }
        }
        finally
        {
            channel.shutdown();
            if (!channel.awaitTermination(STOP_SECONDS, TimeUnit.SECONDS))
            {
                channel.shutdownNow();
            }
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * The server in a child JVM, the client here.
     *
     * @return the exit status: 0 if the client's calls were answered and the server stopped cleanly.
     */
    private static int both(final String serverAddress, final String clientAddress) throws Exception
    {
        final Process server = startServer(serverAddress);
        final CompletableFuture<String> listening = new CompletableFuture<>();
        final Thread relay = Thread.ofPlatform().name("server-output").start(() -> relay(server, listening));
        try
        {
            final String line = listening.get(START_SECONDS, TimeUnit.SECONDS);
            final String[] where = line.substring(line.indexOf(LISTENING) + LISTENING.length()).split(" ");
            client(new InetSocketAddress(InetAddress.getByName(where[0]), Integer.parseInt(where[1])),
                InetAddress.getByName(clientAddress));
        }
        catch (final Exception ex)
        {
            server.destroy();
            throw ex;
        }
        finally
        {
            // the end of its standard input is the server's signal to stop
            server.getOutputStream().close();
        }
        if (!server.waitFor(STOP_SECONDS, TimeUnit.SECONDS))
        {
            server.destroyForcibly();
            System.err.println("the server did not stop within " + STOP_SECONDS + " s");
            return 1;
        }
        relay.join();
        return server.exitValue() == 0 ? 0 : 1;
    }

    /** This JVM's Java, class path and {@code rdma4j.*} settings, running {@code GrpcHello server ADDRESS}. */
    private static Process startServer(final String address) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        for (final String name : System.getProperties().stringPropertyNames())
        {
            if (name.startsWith("rdma4j."))
            {
                command.add("-D" + name + "=" + System.getProperty(name));
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), GrpcHello.class.getName(), "server",
            address));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** Print the server's lines as they come, and hand over the one that says where it listens. */
    private static void relay(final Process server, final CompletableFuture<String> listening)
    {
        try (BufferedReader in = new BufferedReader(
            new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                System.out.println("[server] " + line);
                if (line.contains(LISTENING))
                {
                    listening.complete(line);
                }
            }
        }
        catch (final IOException ex)
        {
            listening.completeExceptionally(ex);
        }
        listening.completeExceptionally(new IOException("the server exited before it listened"));
    }
}
