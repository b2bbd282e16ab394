package io.rdma4j.verbs;

import io.rdma4j.testing.PackageGraph;
import org.junit.jupiter.api.Test;

import java.util.Set;

/**
 * The API's packages import one another only along the allowed arrows (see each package-info).
 * <p>
 * Every package has a package-info that says what it is for and where its arrows point, so a new
 * package cannot arrive undocumented.
 */
class PackageCyclesTest
{
    /**
     * The one cycle the API keeps on purpose: an application starts from {@code Verbs} or {@code RdmaCm}, which
     * look the engines up through {@code spi}, and an engine's {@code RdmaProvider} hands out devices and event
     * channels, the types of {@code verbs} and {@code cm}. Splitting the lookup from the types would cost an
     * application a second entry point for nothing.
     */
    private static final Set<Set<String>> ALLOWED = Set.of(
        Set.of("io.rdma4j.verbs", "io.rdma4j.spi", "io.rdma4j.cm"));

    @Test
    void shouldHaveNoPackageCycleButTheProviderLookup()
    {
        PackageGraph.ofClassesOf(Verbs.class).assertCyclesExactly(ALLOWED);
    }

    @Test
    void shouldDocumentEveryPackage()
    {
        PackageGraph.ofClassesOf(Verbs.class).assertEveryPackageDocumented();
    }
}
