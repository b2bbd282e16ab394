package io.rdma4j.tools;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The artifacts as JPMS modules, from outside: the tools, the API and both engines resolved from the built jars
 * (or the reactor's class directories) on a module path, as a modular application sees them. The tests run on
 * the class path themselves (docs/decisions.md, "JPMS modules"), so every check here goes through a module
 * layer, a compiler or a JVM of its own. Addresses and groups are the test JVM's own
 * ({@link TestNet}).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ModulePathTest
{
    private static final String PROVIDER = "io.rdma4j.spi.RdmaProvider";

    /**
     * @return the test class path's entries that are rdma4j's modules and the tools' dependencies: a module path
     * for {@code io.rdma4j.tools}. Test-only jars stay off it.
     */
    static List<Path> toolsModulePath()
    {
        final List<Path> path = new ArrayList<>();
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            final Path p = Path.of(entry);
            final String name = p.getFileName().toString();
            final boolean moduleOutput = name.equals("classes") &&
                p.getParent().getFileName().toString().equals("target");
            final boolean moduleJar = name.endsWith(".jar") && (name.startsWith("rdma4j-") ||
                name.startsWith("picocli-") || name.startsWith("HdrHistogram-") || name.startsWith("agrona-"));
            if (moduleOutput || moduleJar)
            {
                path.add(p);
            }
        }
        return path;
    }

    private static String joined(final List<Path> path)
    {
        return path.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    }

    private static ModuleLayer toolsLayer()
    {
        final ModuleFinder finder = ModuleFinder.of(toolsModulePath().toArray(Path[]::new));
        final Configuration configuration = ModuleLayer.boot().configuration()
            .resolveAndBind(finder, ModuleFinder.of(), Set.of("io.rdma4j.tools"));
        return ModuleLayer.boot().defineModulesWithOneLoader(configuration, ClassLoader.getSystemClassLoader());
    }

    private static Module module(final ModuleLayer layer, final String name)
    {
        return layer.findModule(name).orElseThrow(() -> new AssertionError(name + " was not resolved"));
    }

    @Test
    void shouldExportTheApiAndNoEnginesInternals()
    {
        final ModuleLayer layer = toolsLayer();
        final Module api = module(layer, "io.rdma4j.api");
        final Module soft = module(layer, "io.rdma4j.soft");
        final Module rdmacore = module(layer, "io.rdma4j.rdmacore");
        final Module tools = module(layer, "io.rdma4j.tools");

        assertEquals(Set.of("io.rdma4j.verbs", "io.rdma4j.cm", "io.rdma4j.cm.ep", "io.rdma4j.spi"),
            api.getDescriptor().exports().stream().filter(e -> !e.isQualified())
                .map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()));
        for (final String internal : List.of("io.rdma4j.soft", "io.rdma4j.soft.wire", "io.rdma4j.soft.cm",
            "io.rdma4j.soft.transport", "io.rdma4j.soft.link", "io.rdma4j.soft.stat"))
        {
            assertFalse(soft.isExported(internal), internal + " is exported");
        }
        assertFalse(soft.isOpen("io.rdma4j.soft.wire"), "io.rdma4j.soft.wire is open");
        // the counters files' format is a module of its own, which the soft device, rmcast and the tools share
        assertFalse(soft.isExported("io.rdma4j.soft.stat", tools));
        assertTrue(module(layer, "io.rdma4j.stat").isExported("io.rdma4j.stat"));
        for (final String internal : List.of("io.rdma4j.rdmacore", "io.rdma4j.rdmacore.abi", "io.rdma4j.rdmacore.cm",
            "io.rdma4j.rdmacore.provider"))
        {
            assertFalse(rdmacore.isExported(internal), internal + " is exported");
        }
        // picocli reflects into every package holding a command or a converter
        final Module picocli = module(layer, "info.picocli");
        for (final String commands : List.of("io.rdma4j.tools", "io.rdma4j.tools.common", "io.rdma4j.tools.perf",
            "io.rdma4j.tools.pingpong", "io.rdma4j.tools.rping", "io.rdma4j.tools.soak", "io.rdma4j.tools.udaddy",
            "io.rdma4j.tools.cmatose"))
        {
            assertTrue(tools.isOpen(commands, picocli), commands + " is not open to picocli");
            assertFalse(tools.isOpen(commands), commands + " is open to everyone");
        }
    }

    @Test
    void shouldBindBothEnginesThroughProvides() throws Exception
    {
        final ModuleLayer layer = toolsLayer();
        final Class<?> service = module(layer, "io.rdma4j.api").getClassLoader().loadClass(PROVIDER);

        // the tools name neither engine: the API's `uses` and each engine's `provides` bring them in
        final List<String> providers = ServiceLoader.load(layer, service).stream()
            .map(p -> p.type().getName()).sorted().toList();

        assertEquals(List.of("io.rdma4j.rdmacore.provider.NativeProvider", "io.rdma4j.soft.provider.SoftProvider"),
            providers);
        assertTrue(layer.configuration().findModule("io.rdma4j.rdmacore").isPresent());
    }

    @Test
    void shouldNotLetAConsumerModuleCompileAgainstTheSoftDevicesInternals(@TempDir final Path dir) throws IOException
    {
        final String internal = "import io.rdma4j.soft.wire.BthFlyweight;\n" +
            "public final class App { public static void main(String[] a) { System.out.println(BthFlyweight.class); }" +
            " }\n";
        final String api = "import io.rdma4j.verbs.Verbs;\n" +
            "public final class App { public static void main(String[] a) { Verbs.getDeviceList(); } }\n";

        final List<String> refused = compileConsumer(dir.resolve("internal"), internal);
        final List<String> accepted = compileConsumer(dir.resolve("api"), api);

        assertTrue(refused.stream().anyMatch(d -> d.contains("io.rdma4j.soft.wire") && d.contains("not visible")),
            refused.toString());
        assertEquals(List.of(), accepted);
    }

    /**
     * Compile {@code module consumer { requires io.rdma4j.api; requires io.rdma4j.soft; }} with one class in
     * package {@code app} against the module path.
     *
     * @return the compiler's error messages.
     */
    private static List<String> compileConsumer(final Path dir, final String appBody) throws IOException
    {
        final Path src = Files.createDirectories(dir.resolve("src"));
        final Path moduleInfo = Files.writeString(src.resolve("module-info.java"),
            "module consumer { requires io.rdma4j.api; requires io.rdma4j.soft; }\n");
        final Path app = Files.writeString(Files.createDirectories(src.resolve("app")).resolve("App.java"),
            "package app;\n" + appBody);
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        final DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8))
        {
            final List<String> options = List.of("-d", Files.createDirectories(dir.resolve("out")).toString(),
                "-p", joined(toolsModulePath()));
            javac.getTask(null, files, diagnostics, options, null, files.getJavaFileObjects(moduleInfo, app)).call();
        }
        return diagnostics.getDiagnostics().stream()
            .filter(d -> d.getKind() == javax.tools.Diagnostic.Kind.ERROR)
            .map(d -> d.getMessage(null)).toList();
    }

    /**
     * What a JVM printed and how it ended.
     */
    record Run(int status, String out, String err)
    {
    }

    static Run java(final Path dir, final List<String> args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(args);
        final Path out = dir.resolve("out.txt");
        final Path err = dir.resolve("err.txt");
        final Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
            .start();
        if (!process.waitFor(150, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError("still running after 150 s: " + command);
        }
        final Run run = new Run(process.exitValue(), Files.readString(out), Files.readString(err));
        System.out.printf("%s%nstatus %d%n%s%s", command, run.status(), run.out(), run.err());
        return run;
    }

    private static List<String> modular(final String... args)
    {
        final List<String> command = new ArrayList<>();
        command.addAll(List.of(args));
        command.addAll(List.of("-p", joined(toolsModulePath()), "-m", "io.rdma4j.tools/io.rdma4j.tools.Main"));
        return command;
    }

    private static List<String> plus(final List<String> first, final String... more)
    {
        return Stream.concat(first.stream(), Stream.of(more)).toList();
    }

    @Test
    void shouldListTheSoftDeviceWhenTheToolsRunAsAModule(@TempDir final Path dir) throws Exception
    {
        final String address = TestNet.host(77, 201);
        final Run run = java(dir, plus(modular("--enable-native-access=io.rdma4j.rdmacore",
            "-Drdma4j.soft.address=" + address), "devices"));

        assertEquals(0, run.status(), run.err());
        // the engine, then the address the device was given: the API's Device.address() across the module boundary
        assertTrue(run.out().lines().anyMatch(l -> l.trim().startsWith("soft") &&
            l.trim().endsWith("\tsoft\t" + address)), run.out());
        assertFalse(run.err().contains("WARNING"), run.err());
    }

    @Test
    void shouldStartTheDemosChildrenOnTheModulePathToo(@TempDir final Path dir) throws Exception
    {
        // five child JVMs, started by ChildJvm as this one runs: with -p and -m, there being no class path
        final Run run = java(dir, plus(modular("--enable-native-access=io.rdma4j.rdmacore"), "demo", "-C", "20",
            "-m", TestNet.group(77, 9), "--sender", TestNet.host(77, 10),
            "--receivers", TestNet.host(77, 11) + "," + TestNet.host(77, 12) + "," + TestNet.host(77, 13),
            "--member", TestNet.host(77, 14), "--timeout", "30"));

        assertEquals(0, run.status(), run.out() + run.err());
        assertTrue(run.out().lines().anyMatch(l -> l.startsWith("demo: PASS")), run.out());
        // the children got native access for the software device's module too: its Linux socket, no fallback
        assertFalse((run.out() + run.err()).contains("not using the Linux socket"), run.out() + run.err());
    }

    @Test
    void shouldLoadTheNativeProviderWithNativeAccessEnabledForItsModuleAlone(@TempDir final Path dir) throws Exception
    {
        // deny: a restricted call from a module not enabled throws instead of warning
        final Run run = java(dir, plus(modular("--illegal-native-access=deny",
            "--enable-native-access=io.rdma4j.rdmacore", "-Drdma4j.provider=native"), "devices"));

        assertNativeCallMade(reasonOfNative(run));
        assertFalse(run.err().contains("IllegalCallerException"), run.err());
    }

    @Test
    void shouldNameTheFlagWhenNativeAccessIsDeniedToTheNativeModule(@TempDir final Path dir) throws Exception
    {
        final Run run = java(dir, plus(modular("--illegal-native-access=deny", "-Drdma4j.provider=native"),
            "devices"));

        assertEquals("libibverbs.so.1 was not loaded: native access is not enabled for io.rdma4j.rdmacore; run " +
            "java with --enable-native-access=io.rdma4j.rdmacore", reasonOfNative(run));
    }

    /**
     * The provider made its restricted calls: native access was granted. Its answer is then this machine's: no
     * device, no kernel support, or, on a machine without rdma-core, the dynamic loader's own refusal of the
     * library (which only a granted {@code SymbolLookup.libraryLookup} reaches; a denied one names the flag).
     *
     * @param reason what the native provider said.
     */
    static void assertNativeCallMade(final String reason)
    {
        assertTrue(reason.contains("no RDMA device") || reason.contains("ENOSYS") ||
            reason.startsWith("libibverbs.so.1 could not be loaded (Cannot open library"), reason);
    }

    /**
     * @return the sentence {@code rdma4j devices} printed for the native provider's lack of devices.
     */
    static String reasonOfNative(final Run run)
    {
        final String prefix = "No RDMA devices from provider 'native': ";
        return run.err().lines().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length()))
            .findFirst().orElseThrow(() -> new AssertionError("no reason from the native provider: " + run.err()));
    }
}
