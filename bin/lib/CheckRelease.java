import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipFile;

/**
 * bin/check-release's checks, run as a source-file program ({@code java bin/lib/CheckRelease.java}) so that the
 * release check needs nothing but the JDK the build uses.
 * <p>
 * What is published is what rdma4j-bom lists, plus the two POMs it takes to resolve them (rdma4j-parent and the BOM
 * itself). {@code modules ROOT} prints them for Maven's {@code -pl}. {@code check ROOT EFFECTIVE_POMS [--signed]}
 * checks, after {@code mvn -P release package}, that each published jar module has its jar, sources jar and Javadoc
 * jar (with something in each), that every published POM carries what Maven Central requires (name, description,
 * url, licenses, developers, scm), that every other module of the reactor stays out of the deploy, and with
 * {@code --signed} that each of those files has its {@code .asc} beside it.
 */
public final class CheckRelease
{
    private static final String PARENT = "rdma4j-parent";
    private static final String BOM = "rdma4j-bom";

    private final List<String> problems = new ArrayList<>();

    private CheckRelease()
    {
    }

    /**
     * @param args {@code modules ROOT} or {@code check ROOT EFFECTIVE_POMS [--signed]}.
     * @throws Exception if a file cannot be read or parsed.
     */
    public static void main(final String[] args) throws Exception
    {
        if (args.length >= 2 && args[0].equals("modules"))
        {
            System.out.println(String.join(",", publishedModules(Path.of(args[1]))));
            return;
        }
        if (args.length < 3 || !args[0].equals("check"))
        {
            System.err.println("usage: CheckRelease modules ROOT | check ROOT EFFECTIVE_POMS [--signed]");
            System.exit(2);
        }
        final boolean signed = args.length > 3 && args[3].equals("--signed");
        final CheckRelease check = new CheckRelease();
        final int checked = check.run(Path.of(args[1]), Path.of(args[2]), signed);
        if (!check.problems.isEmpty())
        {
            check.problems.forEach(p -> System.err.println("check-release: " + p));
            System.err.println("check-release: FAILED, " + check.problems.size() + " problem(s)");
            System.exit(1);
        }
        System.out.println("check-release: OK, " + checked + " published artifacts" + (signed ? ", signed" : ""));
    }

    private static Document parse(final Path file) throws Exception
    {
        final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(false);
        return factory.newDocumentBuilder().parse(file.toFile());
    }

    private static List<Element> children(final Element parent, final String name)
    {
        final List<Element> found = new ArrayList<>();
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling())
        {
            if (node instanceof final Element element && element.getTagName().equals(name))
            {
                found.add(element);
            }
        }
        return found;
    }

    /**
     * @return the text of the first child element on the path, trimmed, or "" if there is none.
     */
    private static String text(final Element from, final String... path)
    {
        Element at = from;
        for (final String name : path)
        {
            final List<Element> next = children(at, name);
            if (next.isEmpty())
            {
                return "";
            }
            at = next.getFirst();
        }
        return at.getTextContent().trim();
    }

    /**
     * @return the artifactIds of the BOM's managed dependencies: the published jar modules, whose directories carry
     *     the same names.
     */
    private static List<String> bomArtifacts(final Path root) throws Exception
    {
        final Element bom = parse(root.resolve(BOM).resolve("pom.xml")).getDocumentElement();
        final List<String> artifacts = new ArrayList<>();
        for (final Element managed : children(bom, "dependencyManagement"))
        {
            for (final Element dependencies : children(managed, "dependencies"))
            {
                for (final Element dependency : children(dependencies, "dependency"))
                {
                    artifacts.add(text(dependency, "artifactId"));
                }
            }
        }
        return artifacts;
    }

    private static List<String> publishedModules(final Path root) throws Exception
    {
        final List<String> modules = new ArrayList<>();
        modules.add(BOM);
        modules.addAll(bomArtifacts(root));
        return modules;
    }

    private int run(final Path root, final Path effectivePoms, final boolean signed) throws Exception
    {
        final Map<String, Element> effective = new LinkedHashMap<>();
        final Element projects = parse(effectivePoms).getDocumentElement();
        for (final Element project : projects.getTagName().equals("project") ? List.of(projects) :
            children(projects, "project"))
        {
            effective.put(text(project, "artifactId"), project);
        }

        final List<String> jars = bomArtifacts(root);
        int checked = 0;
        for (final String pomOnly : List.of(PARENT, BOM))
        {
            final Path target = root.resolve(pomOnly.equals(PARENT) ? "." : pomOnly).resolve("target");
            checked += checkPom(effective.get(pomOnly), pomOnly, target, signed);
        }
        for (final String artifact : jars)
        {
            final Element pom = effective.get(artifact);
            final Path target = root.resolve(artifact).resolve("target");
            checked += checkPom(pom, artifact, target, signed);
            if (pom != null)
            {
                checked += checkJars(artifact, text(pom, "version"), target, signed);
            }
        }
        checkUnpublished(root, jars);
        return checked;
    }

    /**
     * Maven Central's POM requirements, on the effective POM (what a consumer resolves, the parent's part in it).
     *
     * @return the files counted: the POM itself.
     */
    private int checkPom(final Element pom, final String artifact, final Path target, final boolean signed)
    {
        if (pom == null)
        {
            problems.add(artifact + ": no effective POM (was it in the build?)");
            return 0;
        }
        for (final String element : List.of("groupId", "artifactId", "version", "name", "description", "url"))
        {
            if (text(pom, element).isEmpty())
            {
                problems.add(artifact + ": the POM has no <" + element + ">");
            }
        }
        final List<Element> licenses = children(pom, "licenses");
        if (licenses.isEmpty() || children(licenses.getFirst(), "license").stream()
            .noneMatch(l -> !text(l, "name").isEmpty() && !text(l, "url").isEmpty()))
        {
            problems.add(artifact + ": the POM has no <licenses><license> with a name and a url");
        }
        final List<Element> developers = children(pom, "developers");
        if (developers.isEmpty() || children(developers.getFirst(), "developer").stream()
            .noneMatch(d -> !text(d, "name").isEmpty()))
        {
            problems.add(artifact + ": the POM has no <developers><developer> with a name");
        }
        for (final String scm : List.of("url", "connection", "developerConnection"))
        {
            if (text(pom, "scm", scm).isEmpty())
            {
                problems.add(artifact + ": the POM has no <scm><" + scm + ">");
            }
        }
        if (text(pom, "url").endsWith("/" + artifact))
        {
            problems.add(artifact + ": the url " + text(pom, "url") + " has the module's name appended by inheritance");
        }
        if (signed && text(pom, "packaging").equals("pom"))
        {
            requireSignature(target.resolve(artifact + "-" + text(pom, "version") + ".pom"));
        }
        return 1;
    }

    /**
     * @return the files counted: the three jars.
     */
    private int checkJars(final String artifact, final String version, final Path target, final boolean signed)
        throws IOException
    {
        final String base = artifact + "-" + version;
        // what each jar must hold for its kind to be more than an empty shell
        final Map<String, String> wanted = new LinkedHashMap<>();
        wanted.put(base + ".jar", "module-info.class");
        wanted.put(base + "-sources.jar", ".java");
        wanted.put(base + "-javadoc.jar", "index.html");
        for (final Map.Entry<String, String> jar : wanted.entrySet())
        {
            final Path file = target.resolve(jar.getKey());
            if (!Files.isRegularFile(file))
            {
                problems.add(artifact + ": " + file + " is missing");
                continue;
            }
            try (ZipFile zip = new ZipFile(file.toFile()))
            {
                if (zip.stream().noneMatch(e -> e.getName().endsWith(jar.getValue())))
                {
                    problems.add(artifact + ": " + file.getFileName() + " holds no " + jar.getValue());
                }
            }
            if (signed)
            {
                requireSignature(file);
            }
        }
        if (signed)
        {
            // a jar module's POM is signed beside its jars, under the jar's base name
            requireSignature(target.resolve(base + ".pom"));
        }
        return wanted.size();
    }

    private void requireSignature(final Path file)
    {
        final Path asc = file.resolveSibling(file.getFileName() + ".asc");
        if (!Files.isRegularFile(asc))
        {
            problems.add(asc + " is missing: " + file.getFileName() + " is not signed");
        }
    }

    /**
     * A module of the reactor that the BOM does not list must not reach Maven Central.
     */
    private void checkUnpublished(final Path root, final List<String> published) throws Exception
    {
        final Element parent = parse(root.resolve("pom.xml")).getDocumentElement();
        for (final Element modules : children(parent, "modules"))
        {
            for (final Element module : children(modules, "module"))
            {
                final String name = module.getTextContent().trim();
                if (name.equals(BOM) || published.contains(name))
                {
                    continue;
                }
                final Element pom = parse(root.resolve(name).resolve("pom.xml")).getDocumentElement();
                if (!text(pom, "properties", "maven.deploy.skip").equals("true"))
                {
                    problems.add(name + ": not in rdma4j-bom, so not published, but its POM does not set " +
                        "maven.deploy.skip (add it to the BOM, or skip its deploy)");
                }
            }
        }
    }
}
