package io.rdma4j.rdmacore.abi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.UnionLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every offset and size the Java layouts declare, checked against the C compiler with rdma-core's own headers:
 * the test writes a C program that prints {@code offsetof} and {@code sizeof} for each named member of each
 * layout in {@link AbiLayouts}, compiles it with {@code cc}, runs it and compares. A member that C does not
 * have fails the compilation; a member at another place fails the comparison. It needs a C compiler and
 * {@code libibverbs-dev librdmacm-dev}: where either is missing (a fresh machine with a JDK and Maven only) it
 * is skipped with the reason, unless {@value #REQUIRED_VARIABLE} is set, as {@code .ci/run} sets it after
 * installing them, so that CI can never pass by skipping it.
 */
class LayoutTest
{
    /** Set (to anything but empty or 0) where the check must run: a missing compiler or header then fails it. */
    static final String REQUIRED_VARIABLE = "RDMA4J_REQUIRE_RDMA_HEADERS";

    @Test
    void everyDeclaredOffsetAndSizeMatchesTheCHeaders(@TempDir final Path dir) throws IOException, InterruptedException
    {
        final String missing = CHeaders.missing(AbiLayouts.HEADERS, dir);
        final String required = System.getenv(REQUIRED_VARIABLE);
        if (required == null || required.isEmpty() || "0".equals(required))
        {
            assumeTrue(null == missing, () -> missing + " (install gcc libibverbs-dev librdmacm-dev to run it)");
        }
        else
        {
            assertNull(missing, () -> REQUIRED_VARIABLE + " is set, and " + missing);
        }
        final Map<String, String> expected = new LinkedHashMap<>();
        final StringBuilder c = new StringBuilder();
        c.append("#include <stddef.h>\n#include <stdio.h>\n");
        for (final String header : AbiLayouts.HEADERS)
        {
            c.append("#include <").append(header).append(">\n");
        }
        c.append("#define M(T, P) printf(\"%s %s %zu %zu\\n\", #T, #P, offsetof(T, P), sizeof(((T *)0)->P))\n");
        c.append("#define S(T) printf(\"%s - 0 %zu\\n\", #T, sizeof(T))\n");
        c.append("int main(void)\n{\n");
        for (final GroupLayout layout : AbiLayouts.LAYOUTS)
        {
            final String type = (layout instanceof UnionLayout ? "union " : "struct ") + layout.name().orElseThrow();
            c.append("    S(").append(type).append(");\n");
            expected.put(type + " -", "0 " + layout.byteSize());
            final List<Member> members = new ArrayList<>();
            collect(layout, "", 0, members);
            for (final Member member : members)
            {
                c.append("    M(").append(type).append(", ").append(member.path).append(");\n");
                expected.put(type + ' ' + member.path, member.offset + " " + member.size);
                // the offset helper the production code uses must agree with the walk
                assertEquals(member.offset, CLayout.offset(layout, member.path.split("\\.")), type + ' ' + member.path);
            }
        }
        c.append("    return 0;\n}\n");
        final Path source = dir.resolve("layouts.c");
        Files.writeString(source, c);

        final Path binary = dir.resolve("layouts");
        final String compiled = run(List.of("cc", "-std=gnu11", "-o", binary.toString(), source.toString()));
        assertTrue(Files.isExecutable(binary), "cc failed (install libibverbs-dev librdmacm-dev):\n" + compiled);
        final String output = run(List.of(binary.toString()));

        final Map<String, String> actual = new LinkedHashMap<>();
        for (final String line : output.split("\n"))
        {
            final String[] fields = line.split(" ");
            actual.put(fields[0] + ' ' + fields[1] + ' ' + fields[2], fields[3] + ' ' + fields[4]);
        }
        final List<String> mismatches = new ArrayList<>();
        for (final Map.Entry<String, String> entry : expected.entrySet())
        {
            final String found = actual.get(entry.getKey());
            if (!entry.getValue().equals(found))
            {
                mismatches.add(entry.getKey() + ": Java declares offset/size " + entry.getValue() + ", C has " + found);
            }
        }
        assertEquals(expected.size(), actual.size(), "one line per checked member:\n" + output);
        assertEquals(List.of(), mismatches);
    }

    private record Member(String path, long offset, long size)
    {
    }

    private static void collect(final GroupLayout group, final String prefix, final long base, final List<Member> out)
    {
        long offset = 0;
        for (final MemoryLayout member : group.memberLayouts())
        {
            final long at = base + offset;
            if (member.name().isPresent())
            {
                final String path = prefix + member.name().get();
                out.add(new Member(path, at, member.byteSize()));
                if (member instanceof final GroupLayout nested)
                {
                    collect(nested, path + '.', at, out);
                }
            }
            else if (member instanceof final GroupLayout anonymous)
            {
                // C names an anonymous union's members as if they were the enclosing struct's
                collect(anonymous, prefix, at, out);
            }
            if (!(group instanceof UnionLayout))
            {
                offset += member.byteSize();
            }
        }
    }

    private static String run(final List<String> command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " did not finish");
        assertEquals(0, process.exitValue(), String.join(" ", command) + ":\n" + output);
        return output;
    }
}
