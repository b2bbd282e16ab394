package io.rdma4j.soft;

import io.rdma4j.testing.PackageGraph;
import org.junit.jupiter.api.Test;

import java.util.Set;

/**
 * The software device's packages form no cycle (DESIGN.md: wire, link, receive checks, transport, verbs
 * objects, device agent, connection manager, each importing only downward; counters a leaf). A failure lists
 * the class references behind every edge of a cycle at fault.
 */
class PackageCyclesTest
{
    @Test
    void shouldHaveNoPackageCycle()
    {
        PackageGraph.ofClassesOf(SoftDevice.class).assertCyclesExactly(Set.of());
    }
}
