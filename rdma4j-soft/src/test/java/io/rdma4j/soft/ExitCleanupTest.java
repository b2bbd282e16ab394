package io.rdma4j.soft;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A process that ends without closing its device (it exits, or is sent SIGTERM, or Ctrl-C's SIGINT) leaves no
 * stat file and no same-host inbox behind: `rdma4j stat` would list it until a reader found it dead, and peers
 * would look for it in an inbox whose owner is gone.
 */
@Timeout(60)
class ExitCleanupTest
{
    private static final int SUBNET = TestNet.nextSubnet();

    @TempDir
    private Path tmp;
    private Process child;

    @AfterEach
    void stop()
    {
        if (child != null)
        {
            child.destroyForcibly();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"exit", "TERM", "INT"})
    void shouldRemoveItsStatFileAndInboxAsItEnds(final String how) throws Exception
    {
        final Path stat = tmp.resolve("stat");
        final Path shm = tmp.resolve("shm");
        final int host = switch (how)
        {
            case "exit" -> 1;
            case "TERM" -> 2;
            default -> 3;
        };
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        child = new ProcessBuilder(java, "-D" + SoftSettings.SHM_DIR.property() + "=" + shm,
            "-D" + SoftSettings.STAT_DIR.property() + "=" + stat, "--enable-native-access=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"), ExitCleanupPeer.class.getName(),
            how.equals("exit") ? "exit" : "wait", TestNet.address(SUBNET, host).getHostAddress())
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
            StandardCharsets.US_ASCII));
        assertEquals("OPEN", out.readLine());
        if (!how.equals("exit"))
        {
            // what it made is there while it runs: the check below has something to miss
            assertEquals(1, files(stat, child.pid() + "-").size(), "its stat file");
            assertEquals(1, files(shm, TestNet.address(SUBNET, host).getHostAddress() + "-").size(), "its inbox");
            final Process kill = new ProcessBuilder("kill", "-" + how, Long.toString(child.pid())).start();
            assertEquals(0, kill.waitFor(), "kill -" + how);
        }
        assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the child did not end");
        assertEquals(List.of(List.of(), List.of()), List.of(files(stat, ""), files(shm, "")),
            "stat files and inboxes left");
    }

    /** @return the names in a directory (none if it is missing) that start with a prefix. */
    private static List<String> files(final Path dir, final String prefix) throws IOException
    {
        if (!Files.isDirectory(dir))
        {
            return List.of();
        }
        try (Stream<Path> listing = Files.list(dir))
        {
            return listing.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(prefix)).sorted().toList();
        }
    }
}
