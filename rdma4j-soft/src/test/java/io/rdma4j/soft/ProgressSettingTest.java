package io.rdma4j.soft;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code rdma4j.soft.progress}: a program that sets nothing gets polling mode (a thread polling an empty CQ
 * receives, the progress thread parks meanwhile), the fast one; {@code thread} is the opt-out.
 */
class ProgressSettingTest
{
    private static final String PROPERTY = "rdma4j.soft.progress";

    @AfterEach
    void clear()
    {
        System.clearProperty(PROPERTY);
    }

    @Test
    void shouldPollInlineWhenNothingIsSet()
    {
        assumeTrue(System.getenv("RDMA4J_SOFT_PROGRESS") == null, "RDMA4J_SOFT_PROGRESS is set in this environment");
        System.clearProperty(PROPERTY);
        assertTrue(SoftDevices.pollingMode());
    }

    @Test
    void shouldTakeEitherModeByName()
    {
        System.setProperty(PROPERTY, "thread");
        assertFalse(SoftDevices.pollingMode());
        System.setProperty(PROPERTY, "polling");
        assertTrue(SoftDevices.pollingMode());
    }

    @Test
    void shouldRefuseAnyOtherValueNamingBoth()
    {
        System.setProperty(PROPERTY, "spin");
        final RdmaException ex = assertThrows(RdmaException.class, SoftDevices::pollingMode);
        assertEquals(Errno.EINVAL, ex.errno());
        assertTrue(ex.getMessage().contains("'spin'") && ex.getMessage().contains("'polling'") &&
            ex.getMessage().contains("'thread'"), ex.getMessage());
    }
}
