package io.rdma4j.spi;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CountedTest
{
    @Test
    void shouldUseTheSingularForOneOnly()
    {
        assertEquals("1 memory region", Counted.of(1, "memory region"));
        assertEquals("0 QPs", Counted.of(0, "QP"));
        assertEquals("2 ids", Counted.of(2, "id"));
    }
}
