package io.rdma4j.examples;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every example runs as a user runs it, a JVM per program on loopback, and does what its description
 * says. Addresses are the test JVM's own ({@link io.rdma4j.testing.TestNet}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExamplesTest
{
    @Test
    void shouldExchangeGreetingsAsTheTutorialsServerAndClientDo() throws Exception
    {
        try (ExampleProcess server = ExampleProcess.start(RdmaServer.class, TestNet.host(191), "1"))
        {
            final String listening = server.awaitLine(l -> l.startsWith("listening on port "), 60, TimeUnit.SECONDS);
            final String port = listening.replaceAll("\\D", "");
            try (ExampleProcess client =
                ExampleProcess.start(RdmaClient.class, TestNet.host(191), port, TestNet.host(192)))
            {
                assertEquals(0, client.awaitExit(60, TimeUnit.SECONDS), "client: " + client.lines());
                assertTrue(client.lines().contains("received message: message from passive/server side with pid " +
                    server.pid()), client.lines().toString());
                assertTrue(client.lines().contains("disconnected."), client.lines().toString());
            }
            assertEquals(0, server.awaitExit(60, TimeUnit.SECONDS), "server: " + server.lines());
            assertTrue(server.lines().stream().anyMatch(
                l -> l.startsWith("received message: message from active/client side with pid ")), server.lines().toString());
            assertTrue(server.lines().contains("peer disconnected."), server.lines().toString());
        }
    }

    @Test
    void shouldGreetOverGrpcFromAServerInAnotherProcess() throws Exception
    {
        try (ExampleProcess hello = ExampleProcess.start(GrpcHello.class, TestNet.host(206), TestNet.host(207)))
        {
            assertEquals(0, hello.awaitExit(90, TimeUnit.SECONDS), "GrpcHello: " + hello.lines());
            final String listening = hello.awaitLine(l -> l.startsWith("[server] gRPC server in process "), 1,
                TimeUnit.SECONDS);
            final String serverPid = listening.split(" ")[5];
            assertTrue(Long.parseLong(serverPid) != hello.pid(), "the server ran in the client's process: " + listening);
            final String greeting = ", from process " + serverPid;
            assertEquals(List.of("SayHello: Hello world" + greeting, "Chat: Hello Ada" + greeting,
                "Chat: Hello Grace" + greeting, "Chat: Hello Edsger" + greeting),
                hello.lines().stream().filter(l -> l.startsWith("SayHello: ") || l.startsWith("Chat: ")).toList());
            assertTrue(hello.lines().contains("[server] gRPC server stopped"), hello.lines().toString());
        }
    }

    private static String port(final ExampleProcess server) throws InterruptedException
    {
        return server.awaitLine(l -> l.startsWith("listening on port "), 60, TimeUnit.SECONDS).replaceAll("\\D", "");
    }

    @Test
    void shouldDeliverEveryPublishedMessageToEverySubscriber() throws Exception
    {
        final String group = TestNet.group(1, 93);
        try (ExampleProcess first = ExampleProcess.start(MulticastSubscriber.class, TestNet.host(193), group, "5");
             ExampleProcess second = ExampleProcess.start(MulticastSubscriber.class, TestNet.host(194), group, "5"))
        {
            first.awaitLine(l -> l.equals("joined " + group), 60, TimeUnit.SECONDS);
            second.awaitLine(l -> l.equals("joined " + group), 60, TimeUnit.SECONDS);
            try (ExampleProcess publisher = ExampleProcess.start(MulticastPublisher.class, TestNet.host(195),
                group, "5"))
            {
                assertEquals(0, publisher.awaitExit(60, TimeUnit.SECONDS), "publisher: " + publisher.lines());
                assertTrue(publisher.lines().contains("sent 5 messages to " + group), publisher.lines().toString());
            }
            final List<String> expected = List.of("received: message 0", "received: message 1", "received: message 2",
                "received: message 3", "received: message 4");
            for (final ExampleProcess subscriber : List.of(first, second))
            {
                assertEquals(0, subscriber.awaitExit(60, TimeUnit.SECONDS), "subscriber: " + subscriber.lines());
                assertEquals(expected, subscriber.lines().stream().filter(l -> l.startsWith("received: ")).toList());
            }
        }
    }

    @Test
    void shouldWriteAndReadBackAMebibyteWithTheKeyFromPrivateData() throws Exception
    {
        try (ExampleProcess server = ExampleProcess.start(RdmaWriteServer.class, TestNet.host(196)))
        {
            try (ExampleProcess client = ExampleProcess.start(RdmaWriteClient.class, TestNet.host(196), port(server),
                TestNet.host(197)))
            {
                assertEquals(0, client.awaitExit(60, TimeUnit.SECONDS), "client: " + client.lines());
                final String wrote = client.awaitLine(l -> l.startsWith("wrote and read back "), 1, TimeUnit.SECONDS);
                assertTrue(wrote.startsWith("wrote and read back 1048576 bytes: identical, CRC-32 "), wrote);
                final String crc = wrote.substring(wrote.lastIndexOf(' ') + 1);
                assertEquals(0, server.awaitExit(60, TimeUnit.SECONDS), "server: " + server.lines());
                assertTrue(server.lines().contains("client wrote 1048576 bytes, CRC-32 " + crc + "; the client says " +
                    crc), server.lines().toString());
            }
        }
    }

    @Test
    void shouldAnswerEveryUdRequestToTheAddressItCameFrom() throws Exception
    {
        try (ExampleProcess server = ExampleProcess.start(UdServer.class, TestNet.host(198), "3"))
        {
            try (ExampleProcess client = ExampleProcess.start(UdClient.class, TestNet.host(198), port(server),
                TestNet.host(199), "3"))
            {
                assertEquals(0, client.awaitExit(60, TimeUnit.SECONDS), "client: " + client.lines());
                assertEquals(List.of("response: response 0", "response: response 1", "response: response 2"),
                    client.lines().stream().filter(l -> l.startsWith("response: ")).toList());
            }
            assertEquals(0, server.awaitExit(60, TimeUnit.SECONDS), "server: " + server.lines());
            assertEquals(List.of("request: request 0", "request: request 1", "request: request 2"),
                server.lines().stream().filter(l -> l.startsWith("request: ")).toList());
        }
    }

    @Test
    void shouldServeManyClientsFromOneSharedReceiveQueue() throws Exception
    {
        try (ExampleProcess server = ExampleProcess.start(SrqServer.class, TestNet.host(200), "3", "40"))
        {
            final String port = port(server);
            final List<ExampleProcess> clients = new ArrayList<>();
            try
            {
                for (int i = 0; i < 3; i++)
                {
                    clients.add(ExampleProcess.start(SrqClient.class, TestNet.host(200), port, TestNet.host(201 + i),
                        "40"));
                }
                for (final ExampleProcess client : clients)
                {
                    assertEquals(0, client.awaitExit(60, TimeUnit.SECONDS), "client: " + client.lines());
                }
            }
            finally
            {
                clients.forEach(ExampleProcess::close);
            }
            assertEquals(0, server.awaitExit(60, TimeUnit.SECONDS), "server: " + server.lines());
            // 120 messages through 16 shared buffers, 40 on each client's QP
            assertTrue(server.lines().contains("messages per client QP: [40, 40, 40]"), server.lines().toString());
        }
    }
}
