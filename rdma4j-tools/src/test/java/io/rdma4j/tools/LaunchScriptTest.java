package io.rdma4j.tools;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bin/lib/launch.sh}'s due check ({@code needs_build}), run by bash in a tree of its own: a launch builds a
 * module again when a main source, a main resource or a pom is newer than its jar, never for a test source or
 * a script's own Java, which the jar does not hold.
 */
@Timeout(60)
class LaunchScriptTest
{
    private static final Instant BUILT = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    private Path root;

    @BeforeEach
    void aBuiltModule() throws IOException
    {
        Files.createDirectories(root.resolve("mod/target/lib"));
        write("mod/target/mod-1.0.jar", BUILT);
        write("pom.xml", BUILT.minusSeconds(60));
        write("mod/pom.xml", BUILT.minusSeconds(60));
        write("mod/src/main/java/a/A.java", BUILT.minusSeconds(60));
        write("mod/src/main/resources/a.properties", BUILT.minusSeconds(60));
        write("mod/src/test/java/a/ATest.java", BUILT.minusSeconds(60));
        write("other/src/main/java/b/B.java", BUILT.minusSeconds(60));
    }

    @Test
    void shouldNotBuildWhenOnlyTestsOrScriptsChanged() throws Exception
    {
        assertFalse(due(), "nothing newer than the jar");
        write("mod/src/test/java/a/ATest.java", BUILT.plusSeconds(60));
        write("other/src/test/java/b/BTest.java", BUILT.plusSeconds(60));
        write("bin/lib/CheckRelease.java", BUILT.plusSeconds(60));
        assertFalse(due(), "tests and bin/lib are not in the jar");
    }

    @Test
    void shouldBuildWhenAMainSourceResourceOrPomChanged() throws Exception
    {
        write("other/src/main/java/b/B.java", BUILT.plusSeconds(60));
        assertTrue(due(), "a main source of a module it may depend on");
        write("other/src/main/java/b/B.java", BUILT.minusSeconds(60));
        write("mod/src/main/resources/a.properties", BUILT.plusSeconds(60));
        assertTrue(due(), "a main resource");
        write("mod/src/main/resources/a.properties", BUILT.minusSeconds(60));
        write("pom.xml", BUILT.plusSeconds(60));
        assertTrue(due(), "the parent pom");
    }

    @Test
    void shouldBuildWithoutAJarOrItsDependencies() throws Exception
    {
        Files.delete(root.resolve("mod/target/lib"));
        assertTrue(due(), "no copied dependencies");
        Files.createDirectories(root.resolve("mod/target/lib"));
        Files.delete(root.resolve("mod/target/mod-1.0.jar"));
        assertTrue(due(), "no jar");
    }

    private void write(final String relative, final Instant modified) throws IOException
    {
        final Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, relative, StandardCharsets.US_ASCII);
        Files.setLastModifiedTime(file, FileTime.from(modified));
    }

    /** @return whether needs_build says a build of {@code mod} is due (its exit status 0). */
    private boolean due() throws Exception
    {
        final Process bash = new ProcessBuilder("bash", "-c", ". \"$1\"; needs_build \"$2\" mod", "launch",
            script().toString(), root.toString()).redirectErrorStream(true).start();
        final String output = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(bash.waitFor(30, TimeUnit.SECONDS), "bash did not end");
        final int status = bash.exitValue();
        assertEquals("", output, "needs_build says nothing");
        assertTrue(status == 0 || status == 1, "needs_build's status: " + status);
        return status == 0;
    }

    /** @return the project's bin/lib/launch.sh, found from the module's directory upwards. */
    private static Path script()
    {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent())
        {
            final Path script = dir.resolve("bin/lib/launch.sh");
            if (Files.isRegularFile(script))
            {
                return script;
            }
        }
        throw new AssertionError("no bin/lib/launch.sh above " + Path.of("").toAbsolutePath());
    }
}
