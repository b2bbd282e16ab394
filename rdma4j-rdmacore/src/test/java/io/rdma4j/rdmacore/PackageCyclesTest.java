package io.rdma4j.rdmacore;

import io.rdma4j.testing.PackageGraph;
import org.junit.jupiter.api.Test;

import java.util.Set;

/**
 * The native provider's packages import only downward: {@code provider} above {@code cm}, {@code cm} above
 * the verbs objects of this package, everything above {@code abi}.
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
        PackageGraph.ofClassesOf(NativeDevice.class).assertCyclesExactly(Set.of());
    }

    @Test
    void shouldDocumentEveryPackage()
    {
        PackageGraph.ofClassesOf(NativeDevice.class).assertEveryPackageDocumented();
    }
}
