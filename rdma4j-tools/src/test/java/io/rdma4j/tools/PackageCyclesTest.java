package io.rdma4j.tools;

import io.rdma4j.testing.PackageGraph;
import org.junit.jupiter.api.Test;

import java.util.Set;

/**
 * The tools' packages import only downward: {@code Main} and the commands of this package on top, the
 * commands with packages of their own below, {@code common} at the bottom.
 * <p>
 * Every package has a package-info that says what it is for and where its arrows point, so a new
 * package cannot arrive undocumented.
 */
class PackageCyclesTest
{
    @Test
    void shouldHaveNoPackageCycle()
    {
        // no cycle is allowed here
        PackageGraph.ofClassesOf(Main.class).assertCyclesExactly(Set.of());
    }

    @Test
    void shouldDocumentEveryPackage()
    {
        PackageGraph.ofClassesOf(Main.class).assertEveryPackageDocumented();
    }
}
