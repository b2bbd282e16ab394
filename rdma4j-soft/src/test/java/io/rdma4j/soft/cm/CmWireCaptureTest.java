package io.rdma4j.soft.cm;

import io.rdma4j.soft.wire.BthFlyweight;
import io.rdma4j.soft.wire.Captures;
import io.rdma4j.soft.wire.PcapReader;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * What the connection manager writes is what rxe's kernel CM writes: every CM MAD of the captures,
 * decoded into the fields the state machine keeps and encoded again with the values rdma_cm puts
 * in the rest (timeouts, retries, LIDs, P_Key, target ACK delay, the rdma_cm header), comes out
 * byte for byte.
 */
class CmWireCaptureTest
{
    private static final int MAD_IN_PAYLOAD = 12 + 8;

    @Test
    void shouldEncodeEveryCapturedCmMessageAsTheKernelDid()
    {
        final Set<Class<?>> seen = new HashSet<>();
        int count = 0;
        for (final Path pcap : Captures.pcaps())
        {
            for (final PcapReader.Datagram d : Captures.datagrams(pcap))
            {
                final byte[] payload = d.payload();
                if (payload.length < MAD_IN_PAYLOAD + 256 || BthFlyweight.destQp(MemorySegment.ofArray(payload), 0) != 1)
                {
                    continue;
                }
                final byte[] mad = Arrays.copyOfRange(payload, MAD_IN_PAYLOAD, MAD_IN_PAYLOAD + 256);
                final CmMessage message = CmWire.decode(mad);
                final String where = pcap.getFileName() + " frame " + d.frame();
                assertNotNull(message, where + " decodes");
                assertArrayEquals(mad, CmWire.encode(message), where + " re-encodes byte for byte");
                seen.add(message.getClass());
                count++;
            }
        }
        assertEquals(Set.of(CmMessage.Req.class, CmMessage.Rep.class, CmMessage.Rtu.class, CmMessage.Dreq.class,
            CmMessage.Drep.class, CmMessage.SidrReq.class, CmMessage.SidrRep.class), seen);
        assertEquals(50, count, "the CM MADs of the captures");
    }
}
