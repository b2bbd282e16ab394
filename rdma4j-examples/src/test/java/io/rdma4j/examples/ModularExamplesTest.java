package io.rdma4j.examples;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The examples as a modular application: {@code io.rdma4j.examples} requires {@code io.rdma4j.api} alone, and
 * the engines, on the module path beside it, are found through their {@code provides} (the software device serves
 * the loopback addresses, which no native device owns). Addresses
 * are the test JVM's own ({@link TestNet}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ModularExamplesTest
{
    @Test
    void shouldExchangeGreetingsWithEveryModuleOnTheModulePath() throws Exception
    {
        try (ExampleProcess server = ExampleProcess.startOnModulePath(RdmaServer.class, TestNet.host(204), "1"))
        {
            final String port = server.awaitLine(l -> l.startsWith("listening on port "), 60, TimeUnit.SECONDS)
                .replaceAll("\\D", "");
            try (ExampleProcess client = ExampleProcess.startOnModulePath(RdmaClient.class, TestNet.host(204), port,
                TestNet.host(205)))
            {
                assertEquals(0, client.awaitExit(60, TimeUnit.SECONDS), "client: " + client.lines());
                assertTrue(client.lines().contains("received message: message from passive/server side with pid " +
                    server.pid()), client.lines().toString());
            }
            assertEquals(0, server.awaitExit(60, TimeUnit.SECONDS), "server: " + server.lines());
            assertTrue(server.lines().stream().anyMatch(
                l -> l.startsWith("received message: message from active/client side with pid ")),
                server.lines().toString());
        }
    }
}
