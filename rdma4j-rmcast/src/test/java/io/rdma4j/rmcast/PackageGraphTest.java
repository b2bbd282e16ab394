package io.rdma4j.rmcast;

import io.rdma4j.testing.PackageGraph;
import org.junit.jupiter.api.Test;

import java.util.Set;

/**
 * The module's packages import only downward: {@code rmcast} uses {@code rmcast.protocol}, never the reverse.
 */
class PackageGraphTest
{
    @Test
    void shouldHaveNoPackageCycle()
    {
        PackageGraph.ofClassesOf(Publication.class).assertCyclesExactly(Set.of());
    }

    @Test
    void shouldDocumentEveryPackage()
    {
        PackageGraph.ofClassesOf(Publication.class).assertEveryPackageDocumented();
    }
}
