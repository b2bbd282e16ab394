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
 * IPv6 between two devices on real UDP, which needs addresses the host does not have: a child JVM
 * ({@link Ipv6NamespacePeer}) runs in a user and network namespace of its own ({@code unshare -Urn}) with
 * fd77::1 and fd77::3 on one end of a veth pair and fd77::2 on the other. Where no namespace can be made (an
 * unprivileged container, no {@code unshare}), the test is aborted with the reason: it is then not run, and
 * {@link Ipv6LoopbackTest} on {@code ::1} is what always runs.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class Ipv6NamespaceTest
{
    private static final String READY = "namespace ready";

    @Test
    void shouldConnectCheckAddressesAndMulticastBetweenTwoIpv6Devices() throws Exception
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // a veth pair, not lo: IPv6 multicast sent out of lo never came back in (measured, Linux 6.18), while
        // a group joined on v1 gets what v0 sends, as on a wire
        final String script = "ip link set lo up && ip link add v0 type veth peer name v1 && " +
            "ip link set v0 up && ip link set v1 up && ip -6 addr add fd77::1/64 dev v0 nodad && " +
            "ip -6 addr add fd77::3/64 dev v0 nodad && ip -6 addr add fd77::2/64 dev v1 nodad && " +
            "echo '" + READY + "' && exec \"$0\" --enable-native-access=ALL-UNNAMED -cp \"$1\" \"$2\"";
        final Process process;
        try
        {
            process = new ProcessBuilder("unshare", "-Urn", "sh", "-c", script, java,
                System.getProperty("java.class.path"), Ipv6NamespacePeer.class.getName())
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
            "no network namespace with IPv6 addresses could be made here (unshare -Urn, ip): " + output);
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("RC fd77::1 <-> fd77::2"), output);
        assertTrue(output.contains("check_addr: a write from fd77::3 counted"), output);
        assertTrue(output.contains("multicast: ff0e::77:1 joined"), output);
    }
}
