package io.rdma4j.soft;

import io.rdma4j.testing.PackageGraph;
import org.junit.jupiter.api.Test;

import java.util.Set;

/**
 * The software device's packages form no cycle (DESIGN.md: wire, link, receive checks, transport, verbs
 * objects, device agent, connection manager, each importing only downward; counters a leaf). A failure lists
 * the class references behind every edge of a cycle at fault.
 * <p>
 * Every package has a package-info that says what it is for and where its arrows point, so a new
 * package cannot arrive undocumented.
 */
class PackageCyclesTest
{
    @Test
    void shouldHaveNoPackageCycle()
    {
        PackageGraph.ofClassesOf(SoftDevice.class).assertCyclesExactly(Set.of());
    }

    @Test
    void shouldDocumentEveryPackage()
    {
        PackageGraph.ofClassesOf(SoftDevice.class).assertEveryPackageDocumented();
    }
}
