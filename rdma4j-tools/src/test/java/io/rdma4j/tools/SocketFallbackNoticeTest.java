package io.rdma4j.tools;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A JVM whose software devices fall back from the Linux socket to NIO for want of native access says so on stderr,
 * once however many devices it opens; one that chose NIO itself, or that has native access, says nothing. Each case
 * is a JVM of its own ({@code rdma4j devinfo} opens every device it lists: two here), since native access and the
 * once-only notice are both decided per process.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SocketFallbackNoticeTest
{
    private static final String NOTICE = "rdma4j: not using the Linux socket";

    /**
     * @return how many lines of the child's stderr are the notice; the run must have listed both devices.
     */
    private static long notices(final Path dir, final String... jvmOptions) throws Exception
    {
        final List<String> args = new ArrayList<>(List.of(jvmOptions));
        args.addAll(List.of("-Drdma4j.provider=soft", "-Drdma4j.soft.shm=off", "-Drdma4j.stat=false",
            "-Drdma4j.soft.address=" + TestNet.host(78, 1) + "," + TestNet.host(78, 2),
            "-cp", System.getProperty("java.class.path"), Main.class.getName(), "devinfo"));
        final ModulePathTest.Run run = ModulePathTest.java(dir, args);
        assertEquals(0, run.status(), run.err());
        assertEquals(2, run.out().lines().filter(l -> l.startsWith("hca_id:")).count(), run.out());
        return run.err().lines().filter(l -> l.contains(NOTICE)).count();
    }

    private static void assumeLinux()
    {
        final String arch = System.getProperty("os.arch");
        assumeTrue(System.getProperty("os.name").startsWith("Linux") &&
            (arch.equals("amd64") || arch.equals("aarch64")), "the Linux socket runs on Linux x86_64 and aarch64");
    }

    @Test
    void withoutNativeAccessTheFallbackIsSaidOnce(@TempDir final Path dir) throws Exception
    {
        assumeLinux();
        assertEquals(1, notices(dir));
    }

    @Test
    void anExplicitNioChoiceSaysNothing(@TempDir final Path dir) throws Exception
    {
        assertEquals(0, notices(dir, "-Drdma4j.soft.socket=nio"));
    }

    @Test
    void withNativeAccessTheLinuxSocketIsUsedAndNothingIsSaid(@TempDir final Path dir) throws Exception
    {
        assumeLinux();
        assertEquals(0, notices(dir, "--enable-native-access=ALL-UNNAMED"));
    }
}
