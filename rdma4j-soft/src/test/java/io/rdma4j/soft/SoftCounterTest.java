package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.wire.DropCause;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SoftCounterTest
{
    @Test
    void shouldGiveEveryParserDropItsOwnCounter()
    {
        final Set<SoftCounter> seen = EnumSet.noneOf(SoftCounter.class);
        for (final DropCause cause : DropCause.values())
        {
            final SoftCounter counter = ReceivePath.counterOf(cause);
            assertTrue(seen.add(counter), cause + " shares " + counter);
            assertTrue(SoftCounter.receiveVerdicts().contains(counter), cause + " is no receive verdict");
        }
        assertEquals(SoftCounter.DROP_HDR_TRUNCATED, ReceivePath.counterOf(DropCause.HEADER_TRUNCATED));
    }

    @Test
    void shouldNameEveryCounterOnceInSnakeCase()
    {
        final Set<String> names = new HashSet<>();
        for (final SoftCounter counter : SoftCounter.values())
        {
            assertTrue(counter.counterName().matches("[a-z]+(_[a-z]+)*"), counter.name());
            assertTrue(names.add(counter.counterName()), counter.counterName() + " twice");
        }
    }
}
