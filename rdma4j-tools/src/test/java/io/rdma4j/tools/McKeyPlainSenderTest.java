package io.rdma4j.tools;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rdma4j's mckey receiver fed by a sender that writes no rdma4j header, as rdma-core's mckey
 * sends: the receiver counts completions as rdma-core's does, reports those counts without the
 * analysis only rdma4j's header allows, and succeeds. Addresses 127.44.1.x and groups
 * 239.255.44.x are this class's own.
 */
class McKeyPlainSenderTest
{
    private static final int COUNT = 5;

    /** What the never-written buffer of rdma-core's sender may hold, and the size it sends. */
    enum Fill
    {
        ZEROES(100, buffer -> buffer.fill((byte)0)),
        PATTERN_A5(100, buffer -> buffer.fill((byte)0xA5)),
        RANDOM(100, buffer ->
        {
            final Random random = new Random(4791);
            for (long i = 0; i < buffer.byteSize(); i++)
            {
                buffer.set(ValueLayout.JAVA_BYTE, i, (byte)random.nextInt());
            }
        }),
        SHORTER_THAN_A_HEADER(Payload.HEADER_BYTES - 1, buffer -> buffer.fill((byte)0x7F));

        final int size;
        final Consumer<MemorySegment> fill;

        Fill(final int size, final Consumer<MemorySegment> fill)
        {
            this.size = size;
            this.fill = fill;
        }

        String receiverAddress()
        {
            return TestNet.host(1, 10 + 2 * ordinal());
        }

        String senderAddress()
        {
            return TestNet.host(1, 11 + 2 * ordinal());
        }

        String group()
        {
            return TestNet.group(44, 10 + ordinal());
        }
    }

    private RoleProcess receiver;

    @AfterEach
    void killLeftovers()
    {
        if (receiver != null)
        {
            receiver.destroy();
        }
    }

    @ParameterizedTest
    @EnumSource(Fill.class)
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldCountEveryCompletionFromASenderWithoutTheHeader(final Fill fill) throws Exception
    {
        receiver = RoleProcess.start("receiver", fill.receiverAddress(), List.of("mckey", "-m", fill.group(),
            "-b", fill.receiverAddress(), "-C", Integer.toString(COUNT), "-S", Integer.toString(fill.size),
            "--delay-ms", "0", "--timeout", "30"), System.out::println);
        assertTrue(receiver.joined().get(60, TimeUnit.SECONDS), "the receiver joined: " + receiver.lines());

        try (ApiMulticastSender sender = ApiMulticastSender.join(fill.senderAddress(), fill.group(), fill.size))
        {
            sender.send(COUNT, fill.fill);
        }

        assertEquals(0, receiver.await(60, TimeUnit.SECONDS), "exit status; output: " + receiver.lines());
        assertTrue(receiver.lines().contains("data transfers complete"), receiver.lines().toString());
        assertTrue(receiver.lines().contains("return status 0"), receiver.lines().toString());
        assertEquals(COUNT, receiver.summaryValue("received"), "every completion counts");
        assertEquals(0, receiver.summaryValue("errors"));
        assertFalse(receiver.lines().stream().anyMatch(l -> l.contains("missing=") || l.contains("unique=")),
            "no loss analysis without rdma4j's header: " + receiver.lines());
    }
}
