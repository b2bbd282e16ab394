package io.rdma4j.testing;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PackageGraphTest
{
    private static final Set<String> ABC = Set.of("p.a", "p.b", "p.c");

    @Test
    void shouldPassAModuleWhoseArrowsAllPointOneWay()
    {
        final PackageGraph graph = graph(edge("p.a.A", "p.b.B"), edge("p.b.B", "p.c.C"), edge("p.a.A", "p.c.C"));

        assertEquals(List.of(), graph.cycles());
        assertDoesNotThrow(() -> graph.assertCyclesExactly(Set.of()));
    }

    @Test
    void shouldNameANewCycleAndTheClassesBehindItsEdges()
    {
        final PackageGraph graph = graph(edge("p.a.A", "p.b.B"), edge("p.b.B$Inner", "p.a.A"), edge("p.c.C", "p.a.A"));

        final AssertionError failure = assertThrows(AssertionError.class, () -> graph.assertCyclesExactly(Set.of()));

        assertTrue(failure.getMessage().contains("a new package cycle: [p.a, p.b]"), failure.getMessage());
        assertTrue(failure.getMessage().contains("p.b.B$Inner -> p.a.A"), failure.getMessage());
        assertTrue(!failure.getMessage().contains("p.c.C"), "an edge into the cycle is not part of it");
    }

    @Test
    void shouldFailWhenAnAllowedCycleGrows()
    {
        final PackageGraph graph = graph(edge("p.a.A", "p.b.B"), edge("p.b.B", "p.c.C"), edge("p.c.C", "p.a.A"),
            edge("p.c.C", "p.d.D"), edge("p.d.D", "p.c.C"));

        final AssertionError failure = assertThrows(AssertionError.class, () -> graph.assertCyclesExactly(Set.of(ABC)));

        assertTrue(failure.getMessage().contains("an allowed cycle grew: [p.a, p.b, p.c, p.d] now, [p.d] joined"),
            failure.getMessage());
    }

    @Test
    void shouldFailWhenASecondCycleAppearsBesideTheAllowedOne()
    {
        final PackageGraph graph = graph(edge("p.a.A", "p.b.B"), edge("p.b.B", "p.c.C"), edge("p.c.C", "p.a.A"),
            edge("p.d.D", "p.e.E"), edge("p.e.E", "p.d.D"));

        final AssertionError failure = assertThrows(AssertionError.class, () -> graph.assertCyclesExactly(Set.of(ABC)));

        assertTrue(failure.getMessage().contains("a new package cycle: [p.d, p.e]"), failure.getMessage());
        assertTrue(!failure.getMessage().contains("[p.a, p.b, p.c]"), failure.getMessage());
    }

    @Test
    void shouldAskForATighterListWhenAnAllowedCycleShrinks()
    {
        final PackageGraph graph = graph(edge("p.a.A", "p.b.B"), edge("p.b.B", "p.a.A"), edge("p.b.B", "p.c.C"));

        final AssertionError failure = assertThrows(AssertionError.class, () -> graph.assertCyclesExactly(Set.of(ABC)));

        assertTrue(failure.getMessage().contains("shrank to [[p.a, p.b]]; tighten the allow-list to " +
            "Set.of(\"p.a\", \"p.b\")"), failure.getMessage());
    }

    @Test
    void shouldAskToDropAnAllowedCycleThatIsGone()
    {
        final PackageGraph graph = graph(edge("p.a.A", "p.b.B"), edge("p.b.B", "p.c.C"));

        final AssertionError failure = assertThrows(AssertionError.class, () -> graph.assertCyclesExactly(Set.of(ABC)));

        assertTrue(failure.getMessage().contains("[p.a, p.b, p.c] is gone"), failure.getMessage());
    }

    @Test
    void shouldReadTheseClassesWithJdeps()
    {
        final PackageGraph graph = PackageGraph.ofClassesOf(TestNet.class);

        assertEquals(Set.of("io.rdma4j.testing"), graph.packages());
        assertEquals(List.of(), graph.cycles());
        assertDoesNotThrow(graph::assertEveryPackageDocumented);
    }

    @Test
    void shouldNameThePackagesWithoutAPackageInfo(@TempDir final Path dir) throws IOException
    {
        final Path src = dir.resolve("src");
        final Path classes = dir.resolve("classes");
        write(src.resolve("p/a/package-info.java"), "/** A. */ package p.a;");
        write(src.resolve("p/a/A.java"), "package p.a; public class A { p.b.B b; }");
        write(src.resolve("p/b/B.java"), "package p.b; public class B {}");
        // as maven-compiler-plugin compiles: a package-info of a comment alone still makes a class file
        compile(classes, List.of("-Xpkginfo:always"), src);

        final PackageGraph graph = PackageGraph.of(classes);

        assertEquals(Set.of("p.a", "p.b"), graph.packages());
        assertEquals(Set.of("p.b"), graph.undocumented());
        final AssertionError failure = assertThrows(AssertionError.class, graph::assertEveryPackageDocumented);
        assertTrue(failure.getMessage().contains("without a package-info: [p.b]"), failure.getMessage());
    }

    @Test
    void shouldFindACycleInCompiledClassesOfAModuleWhoseRequirementsAreAbsent(@TempDir final Path dir)
        throws IOException
    {
        final Path src = dir.resolve("src");
        final Path classes = dir.resolve("classes");
        final Path otherClasses = dir.resolve("other");
        // a module that requires another, which jdeps will not be given
        write(src.resolve("other/module-info.java"), "module other { exports o; }");
        write(src.resolve("other/o/O.java"), "package o; public class O {}");
        write(src.resolve("m/module-info.java"), "module m { requires other; }");
        write(src.resolve("m/p/a/A.java"), "package p.a; public class A { p.b.B b; o.O o; }");
        write(src.resolve("m/p/b/B.java"), "package p.b; public class B { public static class Inner { p.a.A a; } }");
        write(src.resolve("m/p/c/C.java"), "package p.c; public class C { p.a.A a; }");
        compile(otherClasses, List.of(), src.resolve("other"));
        compile(classes, List.of("--module-path", otherClasses.toString()), src.resolve("m"));

        final PackageGraph graph = PackageGraph.of(classes);

        assertEquals(Set.of("p.a", "p.b", "p.c"), graph.packages());
        assertEquals(List.of(Set.of("p.a", "p.b")), graph.cycles());
        assertEquals(Set.of("p.b.B$Inner -> p.a.A"), graph.references("p.b", "p.a"));
        assertEquals(Set.of("p.a"), graph.dependencies().get("p.c"));
        assertDoesNotThrow(() -> graph.assertCyclesExactly(Set.of(Set.of("p.a", "p.b"))));
    }

    @Test
    void shouldSeeTheClassesThatAnnotationValuesName(@TempDir final Path dir) throws IOException
    {
        final Path src = dir.resolve("src");
        final Path classes = dir.resolve("classes");
        // jdeps alone sees the annotation's type but not the classes and enums its values name
        write(src.resolve("p/m/Uses.java"), "package p.m; public @interface Uses { Class<?>[] value(); " +
            "java.lang.annotation.ElementType kind() default java.lang.annotation.ElementType.TYPE; }");
        write(src.resolve("p/a/A.java"), "package p.a; @p.m.Uses({String.class, p.b.B[].class}) public class A { " +
            "void m(@p.m.Uses(p.c.C.class) int x) {} }");
        write(src.resolve("p/b/B.java"), "package p.b; public class B { p.a.A a; }");
        write(src.resolve("p/c/C.java"), "package p.c; public class C {}");
        compile(classes, List.of(), src);

        final PackageGraph graph = PackageGraph.of(classes);

        assertEquals(Set.of("p.a.A -> p.b.B"), graph.references("p.a", "p.b"));
        assertEquals(Set.of("p.a.A -> p.c.C"), graph.references("p.a", "p.c"));
        assertEquals(Set.of("p.a.A -> p.m.Uses"), graph.references("p.a", "p.m"));
        assertEquals(List.of(Set.of("p.a", "p.b")), graph.cycles());
    }

    private static void compile(final Path out, final List<String> options, final Path root) throws IOException
    {
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        final List<String> args = new ArrayList<>(options);
        args.addAll(List.of("-d", out.toString()));
        try (var files = Files.walk(root))
        {
            files.filter(f -> f.toString().endsWith(".java")).forEach(f -> args.add(f.toString()));
        }
        assertEquals(0, javac.run(null, null, null, args.toArray(String[]::new)), "javac failed on " + root);
    }

    private static void write(final Path file, final String text) throws IOException
    {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    private static PackageGraph.ClassEdge edge(final String from, final String to)
    {
        return new PackageGraph.ClassEdge(from, to);
    }

    private static PackageGraph graph(final PackageGraph.ClassEdge... references)
    {
        return new PackageGraph("test", Set.of("p.a", "p.b", "p.c", "p.d", "p.e"), List.of(references));
    }
}
