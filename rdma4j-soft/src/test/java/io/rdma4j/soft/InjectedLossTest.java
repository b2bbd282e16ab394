package io.rdma4j.soft;

import io.rdma4j.soft.provider.SoftProvider;
import io.rdma4j.soft.verbs.SoftContext;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.WorkCompletion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rdma4j.soft.loss} makes the provider's devices drop a seeded share of what they send. This
 * class runs in a JVM of its own (see the module's pom), so the provider is configured here first; the values the
 * setting refuses are {@code SoftSettingsTest}'s.
 */
@Timeout(60)
class InjectedLossTest
{
    private static final double LOSS = 0.3;
    private static final long SEED = 11;
    private static final int MESSAGES = 50;

    @BeforeAll
    static void configure()
    {
        System.setProperty("rdma4j.soft.address", TestNet.host(61) + "," + TestNet.host(62));
        System.setProperty("rdma4j.soft.loss", Double.toString(LOSS));
        System.setProperty("rdma4j.soft.loss.seed", Long.toString(SEED));
    }

    @AfterAll
    static void clear()
    {
        System.clearProperty("rdma4j.soft.address");
        System.clearProperty("rdma4j.soft.loss");
        System.clearProperty("rdma4j.soft.loss.seed");
    }

    @Test
    void shouldDropExactlyTheSeededShareOfSentDatagramsAndCountThem()
    {
        final List<Device> devices = new SoftProvider().devices();
        assertEquals(2, devices.size());
        // the provider's devices live as long as this JVM, which is this class's own
        final Context senderContext = devices.get(0).open();
        final Context receiverContext = devices.get(1).open();
        final UdEndpoint sender = new UdEndpoint(senderContext);
        final UdEndpoint receiver = new UdEndpoint(receiverContext);
        receiver.postRecvs(MESSAGES);
        final AddressHandle ah = sender.ahTo(receiver.gid());

        // the first device's link draws from a generator seeded SEED + 0, once per datagram sent
        final SplittableRandom replay = new SplittableRandom(SEED);
        final List<String> expected = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++)
        {
            if (replay.nextDouble() >= LOSS)
            {
                expected.add("m" + i);
            }
            sender.send(ah, receiver.qp.qpNum(), UdEndpoint.QKEY, "m" + i, i);
            assertEquals(1, sender.poll(1, 5000).size(), "send " + i + " completes, dropped or not");
        }

        final List<WorkCompletion> got = receiver.poll(expected.size(), 5000);
        final List<String> texts = new ArrayList<>();
        got.forEach(wc -> texts.add(receiver.text(wc)));
        assertEquals(expected, texts);
        assertTrue(expected.size() < MESSAGES && !expected.isEmpty(), "the seed drops some, not all");
        assertEquals((long)(MESSAGES - expected.size()), senderContext.counters().get(SoftContext.DROP_INJECTED));
        assertEquals(0L, receiverContext.counters().get(SoftContext.DROP_INJECTED));
    }
}
