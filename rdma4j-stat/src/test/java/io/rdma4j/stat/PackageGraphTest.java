package io.rdma4j.stat;

import io.rdma4j.testing.PackageGraph;
import org.junit.jupiter.api.Test;

import java.util.Set;

/**
 * The module is one documented package, a leaf: it imports the JDK alone.
 */
class PackageGraphTest
{
    @Test
    void shouldHaveNoPackageCycle()
    {
        PackageGraph.ofClassesOf(StatFile.class).assertCyclesExactly(Set.of());
    }

    @Test
    void shouldDocumentEveryPackage()
    {
        PackageGraph.ofClassesOf(StatFile.class).assertEveryPackageDocumented();
    }
}
