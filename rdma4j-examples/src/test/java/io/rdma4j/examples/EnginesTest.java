package io.rdma4j.examples;

import io.rdma4j.spi.RdmaProvider;
import io.rdma4j.verbs.Verbs;
import org.junit.jupiter.api.Test;

import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The examples' run-time class path (what {@code bin/example} runs with, target/lib) carries both engines, so that
 * an example on a host with an RDMA device runs on it through the native provider, and
 * {@code rdma4j.provider=native} or {@code soft} can choose either.
 */
class EnginesTest
{
    @Test
    void shouldFindTheSoftwareDeviceAndTheNativeProvider()
    {
        final Set<String> names = ServiceLoader.load(RdmaProvider.class).stream()
            .map(provider -> provider.get().name()).collect(Collectors.toSet());

        assertEquals(Set.of("soft", "native"), names);
        assertEquals("native", Verbs.provider("native").name());
        assertEquals("soft", Verbs.provider("soft").name());
    }
}
