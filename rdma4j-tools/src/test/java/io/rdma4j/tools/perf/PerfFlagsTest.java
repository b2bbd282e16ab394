package io.rdma4j.tools.perf;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * perf's --address and --progress reach the soft device through the default provider's context, in code: after
 * the command has run, the device the API lists is on that address and in that mode, and the command set no
 * rdma4j system property. The command runs in a JVM of its own ({@link PerfFlagsPeer}), where the soft provider is
 * first made by it; its control connection finds no server and it ends with status 1.
 */
class PerfFlagsTest
{
    @Test
    @Timeout(120)
    void theFlagsReachTheDeviceThroughTheContextNotAProperty() throws Exception
    {
        final int subnet = TestNet.nextSubnet();
        final String address = TestNet.address(subnet, 1).getHostAddress();
        final List<String> lines = run("perf", "send_lat", "--progress", "waiting", "--address", address,
            "-p", Integer.toString(closedPort()), TestNet.address(subnet, 2).getHostAddress());

        assertTrue(lines.contains("status 1"), lines.toString());
        assertTrue(lines.contains("properties set []"), lines.toString());
        assertTrue(lines.contains("device " + address + " WAITING"), lines.toString());
    }

    /** A TCP port nobody listens on: one just given back. */
    private static int closedPort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return socket.getLocalPort();
        }
    }

    private static List<String> run(final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin",
            "java").toString(), "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), PerfFlagsPeer.class.getName()));
        command.addAll(List.of(args));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        // the device's other settings by the environment, which the peer does not look at: no inbox, no stat file
        builder.environment().put("RDMA4J_SOFT_SHM", "off");
        builder.environment().put("RDMA4J_STAT", "false");
        final Process process = builder.start();
        final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "still running");
        System.out.print(out);
        assertEquals(0, process.exitValue(), out);
        return out.lines().toList();
    }
}
