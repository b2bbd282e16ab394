package io.rdma4j.testing;

import java.io.IOException;
import java.lang.classfile.Annotation;
import java.lang.classfile.AnnotationValue;
import java.lang.classfile.Attribute;
import java.lang.classfile.AttributedElement;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.attribute.AnnotationDefaultAttribute;
import java.lang.classfile.attribute.RuntimeInvisibleAnnotationsAttribute;
import java.lang.classfile.attribute.RuntimeInvisibleParameterAnnotationsAttribute;
import java.lang.classfile.attribute.RuntimeInvisibleTypeAnnotationsAttribute;
import java.lang.classfile.attribute.RuntimeVisibleAnnotationsAttribute;
import java.lang.classfile.attribute.RuntimeVisibleParameterAnnotationsAttribute;
import java.lang.classfile.attribute.RuntimeVisibleTypeAnnotationsAttribute;
import java.lang.constant.ClassDesc;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The package dependency graph of one module's main classes, read by the JDK's {@code jdeps}, and the check
 * that it holds no package cycle besides the ones a module lists on purpose.
 * <p>
 * A module's test calls {@link #ofClassesOf(Class)} with one of its main classes and then
 * {@link #assertCyclesExactly(Set)} with its allow-list (empty for none). The allow-list is exact: a cycle that
 * is not on it fails, and so does an allowed cycle that grew, shrank, split or went away, each with a sentence
 * saying what to do, so the list can only ever describe the classes as they are. A failure names the
 * class-to-class references behind every package edge of the cycle, the thinnest edges first: those are
 * usually the ones that point the wrong way.
 * <p>
 * jdeps reads the compiled classes, so it sees what the compiler kept: a reference that javac folded away
 * (a compile-time constant) makes no edge, and neither does a name that only appears in a comment or a
 * {@code {@link}} in Javadoc. jdeps also skips the classes named in annotation values (picocli's
 * {@code converter = CNumber.class}, an enum constant), which are imports all the same: this class reads
 * those itself with the JDK's class-file API and adds them to jdeps' edges.
 * <p>
 * The same classes say which packages have a {@code package-info}: {@link #assertEveryPackageDocumented()}
 * fails for a package without one, so a new package cannot arrive without saying what it is for and what it
 * may import. javac writes {@code package-info.class} for a {@code package-info.java} that holds only a
 * comment when given {@code -Xpkginfo:always}, which maven-compiler-plugin passes by default
 * ({@code createMissingPackageInfoClass}).
 */
public final class PackageGraph
{
    // jdeps -verbose:class prints each dependence as "   from.Class   ->   to.Class   archive"
    private static final Pattern DEPENDENCE = Pattern.compile("^\\s+(\\S+)\\s+->\\s+(\\S+)(\\s.*)?$");
    private static final int CLASS_EDGES_SHOWN = 6;

    private final String source;
    private final SortedSet<String> packages;
    private final SortedSet<String> documented;
    private final SortedMap<String, SortedMap<String, SortedSet<String>>> edges = new TreeMap<>();
    private final List<SortedSet<String>> cycles;

    /**
     * A reference from a class of one package to a class of another.
     *
     * @param from the referring class's binary name, e.g. {@code io.rdma4j.x.A$Inner}.
     * @param to   the referred class's binary name.
     */
    public record ClassEdge(String from, String to)
    {
        String fromPackage()
        {
            return packageOf(from);
        }

        String toPackage()
        {
            return packageOf(to);
        }

        @Override
        public String toString()
        {
            return from + " -> " + to;
        }
    }

    /**
     * A graph from class references found elsewhere, of packages none of which has a {@code package-info};
     * references to classes outside {@code packages} or within one package are left out.
     *
     * @param source     what the references were read from, for messages.
     * @param packages   the module's packages.
     * @param references class-to-class references.
     */
    public PackageGraph(final String source, final Collection<String> packages,
        final Collection<ClassEdge> references)
    {
        this(source, packages, Set.of(), references);
    }

    /**
     * A graph from class references found elsewhere; references to classes outside {@code packages} or within
     * one package are left out.
     *
     * @param source     what the references were read from, for messages.
     * @param packages   the module's packages.
     * @param documented those of them that have a {@code package-info}.
     * @param references class-to-class references.
     */
    public PackageGraph(final String source, final Collection<String> packages, final Collection<String> documented,
        final Collection<ClassEdge> references)
    {
        this.source = source;
        this.packages = new TreeSet<>(packages);
        this.documented = new TreeSet<>(documented);
        this.documented.retainAll(this.packages);
        for (final ClassEdge reference : references)
        {
            final String from = reference.fromPackage();
            final String to = reference.toPackage();
            if (!from.equals(to) && this.packages.contains(from) && this.packages.contains(to))
            {
                edges.computeIfAbsent(from, k -> new TreeMap<>())
                    .computeIfAbsent(to, k -> new TreeSet<>())
                    .add(reference.toString());
            }
        }
        cycles = stronglyConnected();
    }

    /**
     * Read the graph of the classes that {@code anyMainClass} was loaded from: a module's
     * {@code target/classes} when its tests run, or its jar.
     *
     * @param anyMainClass a class of the module's main code.
     * @return the module's package graph.
     */
    public static PackageGraph ofClassesOf(final Class<?> anyMainClass)
    {
        final CodeSource code = anyMainClass.getProtectionDomain().getCodeSource();
        if (code == null)
        {
            throw new IllegalArgumentException(anyMainClass + " has no code source to read the classes from");
        }
        try
        {
            return of(Path.of(code.getLocation().toURI()));
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalArgumentException(code.getLocation() + " is no file", ex);
        }
    }

    /**
     * Read the graph of a directory or jar of classes with jdeps.
     *
     * @param classes a directory of class files or a jar.
     * @return their package graph.
     */
    public static PackageGraph of(final Path classes)
    {
        final ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new IllegalStateException(
            "this JDK has no jdeps (module jdk.jdeps), which the package cycle check runs"));
        Path copy = null;
        try
        {
            // jdeps resolves a directory holding module-info.class as a module, and then needs every module it
            // requires on a module path; the classes without their descriptor are just classes
            copy = Files.createTempDirectory("rdma4j-package-graph");
            final SortedSet<String> packages = copyClasses(classes, copy);
            if (packages.isEmpty())
            {
                throw new IllegalArgumentException(classes + " holds no class");
            }
            final String ownPackages = packages.stream().map(Pattern::quote)
                .collect(Collectors.joining("|", "(?:", ")\\.[^.]+"));
            final StringWriter out = new StringWriter();
            final StringWriter err = new StringWriter();
            final int status;
            try (PrintWriter o = new PrintWriter(out); PrintWriter e = new PrintWriter(err))
            {
                status = jdeps.run(o, e, "-verbose:class", "-filter:package", "-regex", ownPackages,
                    copy.toString());
            }
            if (status != 0)
            {
                throw new IllegalStateException("jdeps failed (" + status + ") on " + classes + ": " + err + out);
            }
            final List<ClassEdge> references = new ArrayList<>();
            for (final String line : out.toString().split("\\R"))
            {
                final Matcher m = DEPENDENCE.matcher(line);
                if (m.matches())
                {
                    references.add(new ClassEdge(m.group(1), m.group(2)));
                }
            }
            references.addAll(annotationReferences(copy));
            final Path root = copy;
            final List<String> documented = packages.stream()
                .filter(p -> Files.isRegularFile(root.resolve(p.replace('.', '/')).resolve("package-info.class")))
                .toList();
            return new PackageGraph(classes.toString(), packages, documented, references);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("can't copy the classes of " + classes + " for jdeps", ex);
        }
        finally
        {
            delete(copy);
        }
    }

    /**
     * @return the module's packages, sorted.
     */
    public SortedSet<String> packages()
    {
        return packages;
    }

    /**
     * @return the packages that have no {@code package-info}, sorted.
     */
    public SortedSet<String> undocumented()
    {
        final SortedSet<String> result = new TreeSet<>(packages);
        result.removeAll(documented);
        return result;
    }

    /**
     * Fail unless every package has a {@code package-info}.
     *
     * @throws AssertionError naming the packages without one and what theirs should say.
     */
    public void assertEveryPackageDocumented()
    {
        final SortedSet<String> missing = undocumented();
        if (!missing.isEmpty())
        {
            throw new AssertionError("packages of " + source + " without a package-info: " + missing +
                "; give each a package-info.java saying what it is for and, under <b>Arrows.</b>, which packages " +
                "of the project it imports and which import it (as the module's other packages do)");
        }
    }

    /**
     * @return for each package, the other packages of the module it refers to, sorted.
     */
    public SortedMap<String, SortedSet<String>> dependencies()
    {
        final SortedMap<String, SortedSet<String>> result = new TreeMap<>();
        for (final String p : packages)
        {
            result.put(p, new TreeSet<>(edges.getOrDefault(p, new TreeMap<>()).keySet()));
        }
        return result;
    }

    /**
     * @param from a package.
     * @param to   another.
     * @return the class references that make the edge from one to the other, empty when there is none.
     */
    public SortedSet<String> references(final String from, final String to)
    {
        return edges.getOrDefault(from, new TreeMap<>()).getOrDefault(to, new TreeSet<>());
    }

    /**
     * @return the package cycles: each strongly connected set of two or more packages, sorted.
     */
    public List<SortedSet<String>> cycles()
    {
        return cycles;
    }

    /**
     * Fail unless the cycles are exactly the allowed ones: no cycle besides them, and each of them just as
     * large as listed, so that a list longer than needed is caught as well.
     *
     * @param allowed the cycles the module keeps on purpose, each the set of its packages; empty for none.
     * @throws AssertionError naming each difference, the fix, and the class references of every cycle at fault.
     */
    public void assertCyclesExactly(final Set<Set<String>> allowed)
    {
        final List<String> problems = new ArrayList<>();
        final Set<SortedSet<String>> shown = new TreeSet<>(Comparator.comparing(Object::toString));
        for (final SortedSet<String> cycle : cycles)
        {
            if (allowed.contains(cycle))
            {
                continue;
            }
            final List<SortedSet<String>> within = allowed.stream().filter(cycle::containsAll)
                .<SortedSet<String>>map(TreeSet::new).toList();
            if (!within.isEmpty())
            {
                final SortedSet<String> joined = new TreeSet<>(cycle);
                within.forEach(joined::removeAll);
                problems.add("an allowed cycle grew: " + cycle + " now, " + joined + " joined " + within +
                    "; point the new edges downward (below)");
                shown.add(cycle);
            }
            else if (allowed.stream().noneMatch(a -> a.containsAll(cycle)))
            {
                problems.add("a new package cycle: " + cycle + "; point its edges downward (below)");
                shown.add(cycle);
            }
        }
        for (final Set<String> cycle : allowed)
        {
            if (cycles.contains(new TreeSet<>(cycle)))
            {
                continue;
            }
            final List<SortedSet<String>> left = cycles.stream().filter(cycle::containsAll).toList();
            if (cycles.stream().anyMatch(c -> c.containsAll(cycle)))
            {
                // it grew, said above
                continue;
            }
            if (left.isEmpty())
            {
                problems.add("the allowed cycle " + new TreeSet<>(cycle) + " is gone; take it off the allow-list");
            }
            else
            {
                problems.add("the allowed cycle " + new TreeSet<>(cycle) + " shrank to " + left +
                    "; tighten the allow-list to " + left.stream().map(PackageGraph::asCode)
                    .collect(Collectors.joining(", ")));
            }
        }
        if (!problems.isEmpty())
        {
            final StringBuilder message = new StringBuilder("package cycles in ").append(source).append(":\n");
            problems.forEach(p -> message.append("  ").append(p).append('\n'));
            shown.forEach(c -> describeCycle(c, message));
            throw new AssertionError(message.toString());
        }
    }

    /**
     * @return the whole graph as text: each package's edges with their number of class references, then each
     *     cycle with its class references.
     */
    public String describe()
    {
        final StringBuilder text = new StringBuilder("packages of ").append(source).append(":\n");
        for (final String p : packages)
        {
            text.append("  ").append(p).append('\n');
            edges.getOrDefault(p, new TreeMap<>()).forEach((to, refs) ->
                text.append("    -> ").append(to).append(" (").append(refs.size()).append(")\n"));
        }
        cycles.forEach(c -> describeCycle(c, text));
        return text.toString();
    }

    private void describeCycle(final SortedSet<String> cycle, final StringBuilder text)
    {
        text.append("cycle ").append(cycle).append(", its edges thinnest first:\n");
        final List<Map.Entry<String, SortedSet<String>>> inside = new ArrayList<>();
        for (final String from : cycle)
        {
            edges.getOrDefault(from, new TreeMap<>()).forEach((to, refs) ->
            {
                if (cycle.contains(to))
                {
                    inside.add(Map.entry(from + " -> " + to, refs));
                }
            });
        }
        inside.sort(Comparator.comparingInt((Map.Entry<String, SortedSet<String>> e) -> e.getValue().size())
            .thenComparing(Map.Entry::getKey));
        for (final Map.Entry<String, SortedSet<String>> edge : inside)
        {
            final SortedSet<String> refs = edge.getValue();
            text.append("  ").append(edge.getKey()).append(" (").append(refs.size()).append(")\n");
            refs.stream().limit(CLASS_EDGES_SHOWN).forEach(r -> text.append("      ").append(r).append('\n'));
            if (refs.size() > CLASS_EDGES_SHOWN)
            {
                text.append("      and ").append(refs.size() - CLASS_EDGES_SHOWN).append(" more\n");
            }
        }
    }

    private List<SortedSet<String>> stronglyConnected()
    {
        // Tarjan's algorithm; a module has a few dozen packages, so recursion depth is no concern
        final Tarjan tarjan = new Tarjan();
        packages.forEach(p ->
        {
            if (!tarjan.index.containsKey(p))
            {
                tarjan.visit(p);
            }
        });
        tarjan.found.sort(Comparator.comparing(Object::toString));
        return List.copyOf(tarjan.found);
    }

    private final class Tarjan
    {
        final Map<String, Integer> index = new HashMap<>();
        final Map<String, Integer> lowLink = new HashMap<>();
        final List<String> stack = new ArrayList<>();
        final Set<String> onStack = new TreeSet<>();
        final List<SortedSet<String>> found = new ArrayList<>();

        void visit(final String p)
        {
            index.put(p, index.size());
            lowLink.put(p, index.get(p));
            stack.add(p);
            onStack.add(p);
            for (final String q : edges.getOrDefault(p, new TreeMap<>()).keySet())
            {
                if (!index.containsKey(q))
                {
                    visit(q);
                    lowLink.put(p, Math.min(lowLink.get(p), lowLink.get(q)));
                }
                else if (onStack.contains(q))
                {
                    lowLink.put(p, Math.min(lowLink.get(p), index.get(q)));
                }
            }
            if (lowLink.get(p).equals(index.get(p)))
            {
                final SortedSet<String> component = new TreeSet<>();
                String q;
                do
                {
                    q = stack.removeLast();
                    onStack.remove(q);
                    component.add(q);
                }
                while (!q.equals(p));
                // a single package is no cycle: references within a package are not edges here
                if (component.size() > 1)
                {
                    found.add(component);
                }
            }
        }
    }

    /**
     * @param classes a directory of class files.
     * @return each class's references to the classes that its annotations' values name.
     */
    static List<ClassEdge> annotationReferences(final Path classes) throws IOException
    {
        final List<ClassEdge> references = new ArrayList<>();
        final List<Path> files;
        try (Stream<Path> walk = Files.walk(classes))
        {
            files = walk.filter(f -> f.toString().endsWith(".class")).toList();
        }
        for (final Path file : files)
        {
            final ClassModel model = ClassFile.of().parse(Files.readAllBytes(file));
            final String from = model.thisClass().asInternalName().replace('/', '.');
            final Set<String> named = new TreeSet<>();
            annotated(model, named);
            model.fields().forEach(f -> annotated(f, named));
            model.methods().forEach(m -> annotated(m, named));
            model.findAttribute(Attributes.record()).ifPresent(r ->
                r.components().forEach(c -> annotated(c, named)));
            named.forEach(to -> references.add(new ClassEdge(from, to)));
        }
        return references;
    }

    private static void annotated(final AttributedElement element, final Set<String> named)
    {
        for (final Attribute<?> attribute : element.attributes())
        {
            switch (attribute)
            {
                case RuntimeVisibleAnnotationsAttribute a ->
                    a.annotations().forEach(x -> annotation(x, named));
                case RuntimeInvisibleAnnotationsAttribute a ->
                    a.annotations().forEach(x -> annotation(x, named));
                case RuntimeVisibleParameterAnnotationsAttribute a ->
                    a.parameterAnnotations().forEach(p -> p.forEach(x -> annotation(x, named)));
                case RuntimeInvisibleParameterAnnotationsAttribute a ->
                    a.parameterAnnotations().forEach(p -> p.forEach(x -> annotation(x, named)));
                case RuntimeVisibleTypeAnnotationsAttribute a ->
                    a.annotations().forEach(x -> annotation(x.annotation(), named));
                case RuntimeInvisibleTypeAnnotationsAttribute a ->
                    a.annotations().forEach(x -> annotation(x.annotation(), named));
                case AnnotationDefaultAttribute a -> value(a.defaultValue(), named);
                default ->
                {
                    // the rest name their classes where jdeps looks (constant pool, descriptors, signatures);
                    // type annotations inside method bodies are not read
                }
            }
        }
    }

    private static void annotation(final Annotation annotation, final Set<String> named)
    {
        name(annotation.classSymbol(), named);
        annotation.elements().forEach(e -> value(e.value(), named));
    }

    private static void value(final AnnotationValue value, final Set<String> named)
    {
        switch (value)
        {
            case AnnotationValue.OfClass c -> name(c.classSymbol(), named);
            case AnnotationValue.OfEnum e -> name(e.classSymbol(), named);
            case AnnotationValue.OfAnnotation a -> annotation(a.annotation(), named);
            case AnnotationValue.OfArray a -> a.values().forEach(v -> value(v, named));
            default ->
            {
                // a constant names no class
            }
        }
    }

    private static void name(final ClassDesc type, final Set<String> named)
    {
        ClassDesc element = type;
        while (element.isArray())
        {
            element = element.componentType();
        }
        if (element.isClassOrInterface())
        {
            final String descriptor = element.descriptorString();
            named.add(descriptor.substring(1, descriptor.length() - 1).replace('/', '.'));
        }
    }

    private static SortedSet<String> copyClasses(final Path classes, final Path target) throws IOException
    {
        if (Files.isDirectory(classes))
        {
            return copyTree(classes, target);
        }
        try (FileSystem jar = FileSystems.newFileSystem(classes))
        {
            return copyTree(jar.getPath("/"), target);
        }
    }

    private static SortedSet<String> copyTree(final Path root, final Path target) throws IOException
    {
        final SortedSet<String> packages = new TreeSet<>();
        final List<Path> files;
        try (Stream<Path> walk = Files.walk(root))
        {
            files = walk.filter(Files::isRegularFile).toList();
        }
        for (final Path file : files)
        {
            final Path relative = root.relativize(file);
            final String name = relative.getFileName().toString();
            // META-INF holds the services and, in a multi-release jar, other versions of the same classes
            if (!name.endsWith(".class") || name.equals("module-info.class") || relative.getNameCount() < 2 ||
                relative.getName(0).toString().equals("META-INF"))
            {
                continue;
            }
            final Path copy = target.resolve(relative.toString());
            Files.createDirectories(copy.getParent());
            Files.copy(file, copy);
            packages.add(relative.getParent().toString().replace(relative.getFileSystem().getSeparator(), "."));
        }
        return packages;
    }

    private static void delete(final Path dir)
    {
        if (dir == null)
        {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir))
        {
            for (final Path p : walk.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(p);
            }
        }
        catch (final IOException ex)
        {
            // a temporary copy left behind costs disk, not a wrong verdict
        }
    }

    private static String packageOf(final String className)
    {
        final int dot = className.lastIndexOf('.');
        return dot < 0 ? "" : className.substring(0, dot);
    }

    private static String asCode(final Set<String> cycle)
    {
        return cycle.stream().map(p -> '"' + p + '"').collect(Collectors.joining(", ", "Set.of(", ")"));
    }
}
