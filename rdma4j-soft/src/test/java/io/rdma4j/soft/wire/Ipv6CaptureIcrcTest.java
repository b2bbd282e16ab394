package io.rdma4j.soft.wire;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ground truth for the IPv6 ICRC: captures/ipv6 holds RoCEv2 over IPv6 between Linux rxe (kernel and rdma-core
 * in the lab guest) and this project's software device, taken on the guest's eth0 (see its README). Every packet
 * of either sender must carry the ICRC {@link Icrc} gives for its addresses and ports, and parse.
 */
class Ipv6CaptureIcrcTest
{
    static List<Path> pcaps()
    {
        try (Stream<Path> files = Files.list(Captures.directory().resolve("ipv6")))
        {
            return files.filter(p -> p.getFileName().toString().endsWith(".pcap")).sorted().toList();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    @ParameterizedTest
    @MethodSource("pcaps")
    void shouldMatchTheIcrcOfEveryPacketOfBothSenders(final Path pcap) throws IOException
    {
        final List<PcapReader.Datagram6> datagrams = PcapReader.readIpv6(pcap);
        assertFalse(datagrams.isEmpty(), pcap + " holds no RoCEv2 over IPv6");
        final TestIcrc icrc = new TestIcrc();
        final PacketParser parser = new PacketParser();
        final Set<Long> senders = new HashSet<>();
        for (final PcapReader.Datagram6 d : datagrams)
        {
            final MemorySegment payload = MemorySegment.ofArray(d.payload());
            final int expected = icrc.computeIpv6(payload, 0, d.payload().length, d.sourceHigh(), d.sourceLow(),
                d.destinationHigh(), d.destinationLow(), d.sourcePort(), d.destinationPort());
            assertEquals(Integer.toHexString(Icrc.read(payload, 0, d.payload().length)), Integer.toHexString(expected),
                pcap.getFileName() + " frame " + d.frame() + ": ICRC on the wire vs computed");

            final PacketInfo info = new PacketInfo().networkIpv6(d.sourceHigh(), d.sourceLow(), d.sourcePort(),
                d.destinationHigh(), d.destinationLow(), d.destinationPort());
            assertEquals(DropCause.NONE, parser.parse(payload, 0, d.payload().length, info),
                pcap.getFileName() + " frame " + d.frame());
            senders.add(d.sourceLow());
        }
        assertEquals(2, senders.size(), pcap + ": packets of both rxe and the software device");
    }

    @ParameterizedTest
    @MethodSource("pcaps")
    void shouldRefuseEveryPacketWithOneAddressBitFlipped(final Path pcap) throws IOException
    {
        final TestIcrc icrc = new TestIcrc();
        for (final PcapReader.Datagram6 d : PcapReader.readIpv6(pcap))
        {
            final MemorySegment payload = MemorySegment.ofArray(d.payload());
            assertFalse(icrc.checkIpv6(payload, 0, d.payload().length, d.sourceHigh() ^ 1L << 40, d.sourceLow(),
                d.destinationHigh(), d.destinationLow(), d.sourcePort(), d.destinationPort()),
                pcap.getFileName() + " frame " + d.frame());
            assertTrue(icrc.checkIpv6(payload, 0, d.payload().length, d.sourceHigh(), d.sourceLow(),
                d.destinationHigh(), d.destinationLow(), d.sourcePort(), d.destinationPort()));
        }
    }
}
