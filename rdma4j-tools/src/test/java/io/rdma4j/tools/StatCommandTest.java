package io.rdma4j.tools;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rdma4j stat reads, from another process, the counters a running device keeps in its mapped file, with
 * its QPs and groups; a file left by a process that was killed is removed. Address 127.44.5.1 and group
 * 239.255.44.50 are this class's own.
 */
class StatCommandTest
{
    private ToolProcess receiver;

    @AfterEach
    void killLeftovers()
    {
        if (receiver != null)
        {
            receiver.destroy();
        }
    }

    private static String stat(final Path dir, final String... extra)
    {
        final StringWriter text = new StringWriter();
        final var cl = Main.commandLine();
        cl.setOut(new PrintWriter(text, true));
        final String[] args = new String[extra.length + 3];
        args[0] = "stat";
        args[1] = "--dir";
        args[2] = dir.toString();
        System.arraycopy(extra, 0, args, 3, extra.length);
        cl.execute(args);
        return text.toString();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldShowAnotherProcesssDeviceLiveAndForgetItOnceKilled(@TempDir final Path dir) throws Exception
    {
        receiver = ToolProcess.start("receiver", List.of("mckey", "-m", TestNet.group(44, 50), "-b", TestNet.host(5, 1),
            "-C", "5", "--delay-ms", "0", "--timeout", "60"), line -> line.startsWith("mckey: joined"),
            Map.of("RDMA4J_STAT_DIR", dir.toString()));
        assertTrue(receiver.ready().get(60, TimeUnit.SECONDS), "the receiver joined: " + receiver.lines());

        // the describe section is written when the device opens and then once a second: wait for the group
        String shown = stat(dir, "-a");
        for (int i = 0; i < 100 && !shown.contains("group " + TestNet.group(44, 50) + " 1 QP attached"); i++)
        {
            TimeUnit.MILLISECONDS.sleep(100);
            shown = stat(dir, "-a");
        }
        assertTrue(shown.contains(" " + TestNet.host(5, 1) + " pid " + receiver.pid() + " up "), shown);
        assertTrue(shown.matches("(?s).*\\n    rcvd_pkts +\\d+\\n.*"), "every counter with -a: " + shown);
        assertTrue(shown.matches("(?s).*\\n    qp 0x[0-9a-f]{6} UD RTS.*"), "its UD QP: " + shown);
        assertTrue(shown.contains("group " + TestNet.group(44, 50) + " 1 QP attached"), shown);

        receiver.destroy();
        final String after = stat(dir);
        assertEquals("no rdma4j device is running (files in " + dir + ")\n", after);
        try (var files = Files.list(dir))
        {
            assertFalse(files.findAny().isPresent(), "the killed process's file is removed");
        }
    }
}
