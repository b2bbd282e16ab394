package io.rdma4j.soft.provider;

import io.rdma4j.soft.config.SocketChoice;
import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.ProgressMode;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A context takes what the code gives over what the properties and the environment give, reads the properties
 * only of the settings the code left alone, checks each value as the property's is checked, and cannot change
 * once concluded.
 */
class SoftProviderContextTest
{
    private static final Map<String, String> PROPERTIES = Map.of("rdma4j.soft.address", "127.0.0.7",
        "rdma4j.soft.progress", "nonsense", "rdma4j.stat", "false");
    private static final Map<String, String> ENVIRONMENT = Map.of("RDMA4J_SOFT_SOCKET", "nio",
        "RDMA4J_SOFT_WAIT_SPIN", "-3");

    private static SoftProviderContext context()
    {
        return new SoftProviderContext(PROPERTIES::get, ENVIRONMENT::get);
    }

    @Test
    void whatTheCodeLeavesComesFromThePropertiesAndTheEnvironment()
    {
        // the progress property and the wait spin variable would be EINVAL: given in code, they are not read
        final SoftSettings settings = context().progress(ProgressMode.WAITING).waitSpinMicros(30).conclude()
            .settings();

        assertEquals(List.of(InetAddress.ofLiteral("127.0.0.7")), settings.addresses(), "the property's");
        assertFalse(settings.stat(), "the property's");
        assertEquals(SocketChoice.NIO, settings.socket(), "the variable's");
        assertEquals("waiting", settings.progressName(), "the code's");
        assertEquals(TimeUnit.MICROSECONDS.toNanos(30), settings.waitSpinNs(), "the code's");
    }

    @Test
    void aBadPropertyTheCodeLeftIsRefusedWhenConcluded()
    {
        final RdmaException refused = assertThrows(RdmaException.class,
            () -> context().waitSpinMicros(0).conclude());
        assertEquals(Errno.EINVAL, refused.errno());
        assertTrue(refused.getMessage().contains("rdma4j.soft.progress"), refused.getMessage());
    }

    @Test
    void eachValueIsCheckedWhenItIsSet()
    {
        final SoftProviderContext context = context();
        assertEquals(Errno.EINVAL, assertThrows(RdmaException.class, () -> context.loss(1.0)).errno());
        assertEquals(Errno.EINVAL, assertThrows(RdmaException.class, () -> context.waitSpinMicros(-1)).errno());
        assertEquals(Errno.EINVAL, assertThrows(RdmaException.class, () -> context.addresses("127.0.0.x")).errno());
        assertEquals(Errno.EINVAL, assertThrows(RdmaException.class, () -> context.shmDirectories(List.of()))
            .errno());
        final RdmaException device = assertThrows(RdmaException.class, () -> context.progress(ProgressMode.DEVICE));
        assertTrue(device.getMessage().contains("POLLING, WAITING or THREAD"), device.getMessage());
    }

    @Test
    void aConcludedContextCannotChangeNorMakeASecondInstance()
    {
        final SoftProviderContext context = context().progress(ProgressMode.THREAD).waitSpinMicros(0)
            .statDirectory(Path.of("/tmp/rdma4j-context-test"));
        assertEquals(Errno.EINVAL, assertThrows(RdmaException.class, context::settings).errno(), "not yet");
        context.conclude();
        assertEquals(Path.of("/tmp/rdma4j-context-test"), context.settings().statDirectory());

        final RdmaException changed = assertThrows(RdmaException.class, () -> context.sameHost(false));
        assertEquals(Errno.EINVAL, changed.errno());
        assertTrue(changed.getMessage().contains("rdma4j.soft.shm can no longer change"), changed.getMessage());
        assertEquals(Errno.EINVAL, assertThrows(RdmaException.class, () -> SoftProvider.launch(context)).errno());
    }
}
