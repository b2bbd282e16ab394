package io.rdma4j.soft;

import io.rdma4j.testing.PackageGraph;
import org.junit.jupiter.api.Test;

import java.util.Set;

/**
 * The software device's packages may not form a cycle beyond the ones listed here, which are to be split
 * (DESIGN.md: wire, link, receive checks, transport, verbs objects, device agent, connection manager, each
 * importing only downward; counters a leaf).
 */
class PackageCyclesTest
{
    /**
     * The cycles the device still has, listed exactly so that they cannot grow unseen: a package joining one,
     * or a new cycle, fails; so does a cycle shrinking or going away, so that each step of the split tightens
     * this list. A failure lists the class references behind every edge of a cycle at fault.
     */
    private static final Set<Set<String>> ALLOWED = Set.of(
        // the transports use the verbs objects and the engine (SoftQp, SoftCq, MrTable, SoftEngine, ...)
        // instead of a narrow interface, while the device creates and drives the transports
        Set.of("io.rdma4j.soft", "io.rdma4j.soft.transport"));

    @Test
    void shouldHaveNoPackageCycleButTheKnownOnes()
    {
        PackageGraph.ofClassesOf(SoftDevice.class).assertCyclesExactly(ALLOWED);
    }
}
