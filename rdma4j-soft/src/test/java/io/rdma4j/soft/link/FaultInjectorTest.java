package io.rdma4j.soft.link;

import static io.rdma4j.soft.link.LinkTesting.address;
import static io.rdma4j.soft.link.LinkTesting.datagram;
import static io.rdma4j.soft.link.LinkTesting.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class FaultInjectorTest
{
    private final InetAddress addressA = address("10.0.0.1");
    private final InetAddress addressB = address("10.0.0.2");
    private final InetAddress addressC = address("10.0.0.3");
    private final InetAddress group = address("239.255.0.1");
    private final MemoryNetwork network = new MemoryNetwork();
    private final MemoryLink a = network.attach(addressA);
    private final MemoryLink b = network.attach(addressB);
    private final MemoryLink c = network.attach(addressC);

    @Test
    void shouldDropEveryEligibleDatagram()
    {
        final FaultInjector faults = new FaultInjector(1).dropProbability(1.0);
        network.faultInjector(faults);

        sendNumbered(a, addressB, 3);

        assertEquals(List.of(), drain(b));
        assertEquals(3, faults.dropped());
        assertEquals(3, faults.inspected());
    }

    @Test
    void shouldDuplicateEveryEligibleDatagram()
    {
        final FaultInjector faults = new FaultInjector(1).duplicateProbability(1.0);
        network.faultInjector(faults);

        sendNumbered(a, addressB, 2);

        assertEquals(List.of("0", "0", "1", "1"), drain(b));
        assertEquals(2, faults.duplicated());
    }

    @Test
    void shouldHoldADatagramBackUntilTheNextOneArrives()
    {
        final FaultInjector faults = new FaultInjector(1).reorderProbability(1.0).filter(FaultInjector.Filter.nth(0));
        network.faultInjector(faults);

        sendNumbered(a, addressB, 3);

        assertEquals(List.of("1", "0", "2"), drain(b));
        assertEquals(1, faults.reordered());
    }

    @Test
    void shouldHoldADatagramBackForTheConfiguredDepthOrUntilReleased()
    {
        final FaultInjector faults = new FaultInjector(1)
            .reorderProbability(1.0).reorderDepth(2).filter(FaultInjector.Filter.nth(0));
        network.faultInjector(faults);

        sendNumbered(a, addressB, 4);
        assertEquals(List.of("1", "2", "0", "3"), drain(b));

        faults.filter(FaultInjector.Filter.nth(4));
        sendNumbered(a, addressB, 1);
        assertEquals(List.of(), drain(b));
        assertEquals(1, network.releaseHeld());
        assertEquals(List.of("0"), drain(b));
    }

    @Test
    void shouldFlipExactlyOneBitOfTheDeliveredCopyOnly()
    {
        final FaultInjector faults = new FaultInjector(42).corruptProbability(1.0);
        network.faultInjector(faults);
        final List<SentDatagram> tapped = new ArrayList<>();
        network.tap(tapped::add);
        final ByteBuffer original = datagram("corrupt-me-please");

        a.send(original, addressB, 64);

        final ByteBuffer received = ByteBuffer.allocate(64);
        assertTrue(b.receive(received, new DatagramInfo()));
        assertEquals(1, differingBits(original, received));
        assertEquals(0, differingBits(original, tapped.get(0).buffer()), "the tap sees the datagram as sent");
        assertEquals(1, faults.corrupted());
    }

    @Test
    void shouldApplyFaultsOnlyToEligibleDeliveries()
    {
        final FaultInjector faults = new FaultInjector(1)
            .dropProbability(1.0).filter(FaultInjector.Filter.toReceiver(addressC));
        network.faultInjector(faults);
        b.joinGroup(group);
        c.joinGroup(group);

        sendNumbered(a, group, 2);

        assertEquals(List.of("0", "1"), drain(b));
        assertEquals(List.of(), drain(c));
        assertEquals(2, faults.dropped());
        assertEquals(2, faults.inspected());
    }

    @Test
    void shouldTakeProbabilityChangesAtRunTime()
    {
        final FaultInjector faults = new FaultInjector(1);
        network.faultInjector(faults);

        sendNumbered(a, addressB, 1);
        faults.dropProbability(1.0);
        sendNumbered(a, addressB, 1);
        network.faultInjector(null);
        sendNumbered(a, addressB, 1);

        assertEquals(List.of("0", "0"), drain(b));
        assertEquals(1, faults.dropped());
    }

    @Test
    void shouldReplayTheSameOutcomesFromTheSameSeed()
    {
        final List<String> first = runWithFaults(20250101L);
        final List<String> second = runWithFaults(20250101L);
        final List<String> other = runWithFaults(7L);

        assertEquals(first, second);
        assertNotEquals(first, other);
    }

    @Test
    void shouldApplyEachFaultAtRoughlyItsProbability()
    {
        final FaultInjector faults = new FaultInjector(3)
            .dropProbability(0.1).duplicateProbability(0.1).reorderProbability(0.1).corruptProbability(0.1);
        final MemoryNetwork big = new MemoryNetwork(100_000).faultInjector(faults);
        final MemoryLink sender = big.attach(addressA);
        big.attach(addressB);

        sendNumbered(sender, addressB, 10_000);

        assertEquals(10_000, faults.inspected());
        for (final long count : new long[]{ faults.dropped(), faults.duplicated(), faults.reordered(), faults.corrupted() })
        {
            assertTrue(count > 700 && count < 1100, faults.toString());
        }
    }

    @Test
    void shouldRejectProbabilitiesOutsideZeroToOne()
    {
        final FaultInjector faults = new FaultInjector(1);
        assertThrows(IllegalArgumentException.class, () -> faults.dropProbability(1.5));
        assertThrows(IllegalArgumentException.class, () -> faults.corruptProbability(-0.1));
        assertThrows(IllegalArgumentException.class, () -> faults.reorderProbability(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> faults.reorderDepth(0));
        assertFalse(faults.dropProbability() > 0);
    }

    private List<String> runWithFaults(final long seed)
    {
        final MemoryNetwork net = new MemoryNetwork(10_000).faultInjector(new FaultInjector(seed)
            .dropProbability(0.2).duplicateProbability(0.2).reorderProbability(0.2).corruptProbability(0.2));
        final MemoryLink sender = net.attach(addressA);
        final MemoryLink receiver = net.attach(addressB);
        sendNumbered(sender, addressB, 200);
        net.releaseHeld();

        final List<String> outcomes = new ArrayList<>();
        final ByteBuffer buffer = ByteBuffer.allocate(64);
        while (receiver.receive(buffer, new DatagramInfo()))
        {
            outcomes.add(HexFormat.of().formatHex(bytes(buffer)));
        }
        outcomes.add(net.faultInjector().toString());
        return outcomes;
    }

    private static void sendNumbered(final Link sender, final InetAddress destination, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            assertTrue(sender.send(datagram(Integer.toString(i)), destination, 64));
        }
    }

    private static List<String> drain(final Link link)
    {
        final List<String> texts = new ArrayList<>();
        final ByteBuffer buffer = ByteBuffer.allocate(64);
        final DatagramInfo info = new DatagramInfo();
        while (link.receive(buffer, info))
        {
            texts.add(text(buffer));
        }
        return texts;
    }

    private static byte[] bytes(final ByteBuffer buffer)
    {
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.get(buffer.position(), bytes);
        return bytes;
    }

    private static int differingBits(final ByteBuffer expected, final ByteBuffer actual)
    {
        assertEquals(expected.remaining(), actual.remaining());
        final byte[] x = bytes(expected);
        final byte[] y = bytes(actual);
        int bits = 0;
        for (int i = 0; i < x.length; i++)
        {
            bits += Integer.bitCount((x[i] ^ y[i]) & 0xFF);
        }
        return bits;
    }
}
