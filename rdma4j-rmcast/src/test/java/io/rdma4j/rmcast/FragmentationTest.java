package io.rdma4j.rmcast;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Messages of one fragment written in place, of thousands reassembled, and the limits offer and tryClaim keep.
 */
@Timeout(60)
class FragmentationTest
{
    private static final int SIXTEEN_MIB = 16 * 1024 * 1024;

    @Test
    void shouldReassembleA16MiBMessageAtOnePercentLoss() throws Exception
    {
        // 4 KiB frames: 4 121 fragments, more than the receive queue holds, so some are repaired anyway
        final MulticastConfig config = new MulticastConfig().windowSlots(8192).maxMessageLength(SIXTEEN_MIB);
        try (MemoryFabric fabric = new MemoryFabric(16); Arena arena = Arena.ofConfined();
             Publication publication = Publication.open(config, fabric.device(1), fabric.group(1));
             Subscription subscription = Subscription.open(new MulticastConfig().windowSlots(8192)
                 .maxMessageLength(SIXTEEN_MIB), fabric.device(2), fabric.group(1), null))
        {
            final Runnable step = () ->
            {
                publication.doWork();
                subscription.poll((b, o, l, s, p) -> { }, 64);
            };
            Traffic.await(() -> publication.memberCount() == 1 && subscription.imageCount() == 1, step, 10_000,
                "the member joins");
            fabric.faults().dropProbability(0.01);
            final Traffic traffic = new Traffic(arena, SIXTEEN_MIB);
            final Traffic.Received got = traffic.new Received();
            got.onImageAvailable(publication.sessionId(), 0);
            traffic.offer(publication, SIXTEEN_MIB, step, System.nanoTime() + 20_000_000_000L);
            Traffic.await(() -> got.count() == 1, () ->
            {
                publication.doWork();
                subscription.poll(got, 256);
            }, 30_000, "the 16 MiB message");
            assertEquals(SIXTEEN_MIB, got.delivered.getFirst().length());
            assertEquals((SIXTEEN_MIB + publication.maxPayloadLength() - 1) / publication.maxPayloadLength(),
                publication.position(), "fragmented to the path MTU");
            assertTrue(subscription.counters().get("fragments_repaired") > 0);
        }
    }

    @Test
    void shouldSendAClaimedMessageFromTheWindowAndRefuseMisuse() throws Exception
    {
        final MulticastConfig config = new MulticastConfig().windowSlots(128).mtu(512).maxMessageLength(4096);
        try (MemoryFabric fabric = new MemoryFabric(17);
             Publication publication = Publication.open(config, fabric.device(1), fabric.group(1));
             Subscription subscription = Subscription.open(new MulticastConfig().windowSlots(128).mtu(512)
                 .maxMessageLength(4096), fabric.device(2), fabric.group(1), null))
        {
            final long[] got = new long[3];
            final MessageHandler handler = (buffer, offset, length, sessionId, position) ->
            {
                got[0] = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
                got[1] = length;
                got[2] = position;
            };
            final Runnable step = () ->
            {
                publication.doWork();
                subscription.poll(handler, 16);
            };
            Traffic.await(() -> publication.memberCount() == 1 && subscription.imageCount() == 1, step, 10_000,
                "the member joins");
            final BufferClaim claim = new BufferClaim();
            final long position = publication.tryClaim(8, claim);
            assertEquals(1, position);
            final RdmaException open = assertThrows(RdmaException.class,
                () -> publication.offer(MemorySegment.ofArray(new byte[1])));
            assertEquals(Errno.EINVAL, open.errno());
            claim.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, claim.offset(), 0x1234_5678_9abcL);
            claim.commit();
            Traffic.await(() -> got[2] == 1, step, 10_000, "the claimed message");
            assertEquals(0x1234_5678_9abcL, got[0]);
            assertEquals(8, got[1]);

            final RdmaException tooLongToClaim = assertThrows(RdmaException.class,
                () -> publication.tryClaim(publication.maxPayloadLength() + 1, claim));
            assertEquals(Errno.EINVAL, tooLongToClaim.errno());
            assertTrue(tooLongToClaim.getMessage().contains("one fragment"), tooLongToClaim.getMessage());
            final RdmaException tooLong = assertThrows(RdmaException.class,
                () -> publication.offer(MemorySegment.ofArray(new byte[4097])));
            assertEquals(Errno.EINVAL, tooLong.errno());
            assertTrue(tooLong.getMessage().contains("maxMessageLength"), tooLong.getMessage());
        }
    }

    @Test
    void shouldRefuseAWindowThatCannotHoldTheLargestMessage() throws Exception
    {
        try (MemoryFabric fabric = new MemoryFabric(18))
        {
            final RdmaException refused = assertThrows(RdmaException.class, () -> Publication.open(
                new MulticastConfig().windowSlots(64).mtu(512).maxMessageLength(SIXTEEN_MIB), fabric.device(1),
                fabric.group(1)));
            assertEquals(Errno.EINVAL, refused.errno());
            assertTrue(refused.getMessage().contains("exceeds what the window holds"), refused.getMessage());
            final RdmaException notPowerOfTwo = assertThrows(RdmaException.class,
                () -> new MulticastConfig().windowSlots(100).conclude());
            assertEquals(Errno.EINVAL, notPowerOfTwo.errno());
        }
    }
}
