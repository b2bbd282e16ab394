package io.rdma4j.soft;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 41, finding 6: devices on IPv6 link-local addresses had no inbox, so any local user could forge their
 * peer's WRITEs by UDP. They have one now, named with their interface. The addresses need a link of their own: a
 * child JVM ({@link LinkLocalPeer}) runs in a user and network namespace ({@code unshare -Urn}) with fe80::1 and
 * fe80::2 on one end of a veth pair. Where no namespace can be made the test is aborted with the reason.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LinkLocalSameHostTest
{
    private static final String READY = "namespace ready";

    @Test
    void shouldDropAWriteForgedFromALinkLocalPeersAddress() throws Exception
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final String script = "ip link set lo up && ip link add v0 type veth peer name v1 && " +
            "ip link set v0 up && ip link set v1 up && ip -6 addr add fe80::1/64 dev v0 nodad && " +
            "ip -6 addr add fe80::2/64 dev v0 nodad && " +
            "echo '" + READY + "' && exec \"$0\" --enable-native-access=ALL-UNNAMED -cp \"$1\" \"$2\"";
        final Process process;
        try
        {
            process = new ProcessBuilder("unshare", "-Urn", "sh", "-c", script, java,
                System.getProperty("java.class.path"), LinkLocalPeer.class.getName())
                .redirectErrorStream(true).start();
        }
        catch (final IOException ex)
        {
            assumeTrue(false, "cannot run unshare to make a network namespace: " + ex.getMessage());
            return;
        }
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the namespace's JVM did not end:\n" + output);
        final List<String> lines = output.lines().toList();
        assumeTrue(!lines.isEmpty() && READY.equals(lines.getFirst()),
            "no network namespace with link-local addresses could be made here (unshare -Urn, ip): " + output);
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("inbox fe80:0:0:0:0:0:0:1%"), output);
        assertTrue(output.contains("RC fe80::2 -> fe80::1: the forged WRITE dropped, the peer's placed"), output);
        assertTrue(output.contains("UC fe80::2 -> fe80::1: the forged WRITE dropped, the peer's placed"), output);
    }
}
