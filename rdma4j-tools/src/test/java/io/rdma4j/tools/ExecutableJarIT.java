package io.rdma4j.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packaged tools jar (failsafe, after the package phase) runs with {@code java -jar}: its manifest names the
 * main class, the class path in {@code lib/} beside it, and grants the class path native access, so the native
 * provider calls libibverbs even where restricted methods are denied.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExecutableJarIT
{
    @Test
    void shouldGrantNativeAccessToTheExecutableJarThroughItsManifest(@TempDir final Path dir) throws Exception
    {
        final Path jar = Path.of(System.getProperty("rdma4j.tools.jar"));
        assertTrue(Files.isRegularFile(jar), jar + " was not built");

        final ModulePathTest.Run run = ModulePathTest.java(dir, List.of("--illegal-native-access=deny",
            "-Drdma4j.provider=native", "-jar", jar.toString(), "devices"));

        ModulePathTest.assertNativeCallMade(ModulePathTest.reasonOfNative(run));
        assertFalse(run.err().contains("WARNING"), run.err());
    }
}
