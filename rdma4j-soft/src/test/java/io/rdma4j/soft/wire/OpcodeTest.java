package io.rdma4j.soft.wire;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OpcodeTest
{
    @Test
    void shouldFindEveryOpcodeByItsWireValueAndNothingElse()
    {
        int known = 0;
        for (int wire = 0; wire < 256; wire++)
        {
            final Opcode opcode = Opcode.fromWire(wire);
            if (null != opcode)
            {
                assertEquals(wire, opcode.wire());
                known++;
            }
        }
        assertEquals(Opcode.values().length, known);
        assertNull(Opcode.fromWire(0x15));
        assertNull(Opcode.fromWire(0x40));
        assertNull(Opcode.fromWire(0x60));
        assertSame(Opcode.UD_SEND_ONLY, Opcode.fromWire(0x164));
    }

    @Test
    void shouldGiveEachOpcodeOneTransportMatchingItsName()
    {
        for (final Opcode opcode : Opcode.values())
        {
            final int transport = opcode.mask() & OpcodeMask.TRANSPORTS;
            final String prefix = opcode.name().substring(0, 3);
            switch (prefix)
            {
                case "RC_" -> assertEquals(OpcodeMask.RC, transport, opcode.name());
                case "UC_" -> assertEquals(OpcodeMask.UC, transport, opcode.name());
                case "UD_" -> assertEquals(OpcodeMask.UD, transport, opcode.name());
                default -> assertEquals(0, transport, opcode.name());
            }
            assertTrue(opcode.has(OpcodeMask.BTH));
        }
    }

    @Test
    void shouldBeRequestOrResponseButNotBothExceptCnpWhichIsNeither()
    {
        for (final Opcode opcode : Opcode.values())
        {
            final boolean request = opcode.has(OpcodeMask.REQUEST);
            final boolean response = opcode.has(OpcodeMask.ACK);
            assertEquals(opcode != Opcode.CNP, request ^ response, opcode.name());
        }
    }

    @Test
    void shouldMarkPositionInMessageConsistently()
    {
        for (final Opcode opcode : Opcode.values())
        {
            if (opcode == Opcode.CNP)
            {
                continue;
            }
            final boolean middle = opcode.has(OpcodeMask.MIDDLE);
            final boolean startOrEnd = opcode.has(OpcodeMask.START | OpcodeMask.END);
            assertTrue(middle ^ startOrEnd, opcode.name());
            assertEquals(opcode.name().contains("MIDDLE"), middle, opcode.name());
            final boolean singlePacket = opcode == Opcode.RC_RDMA_READ_REQUEST || opcode == Opcode.RC_ACKNOWLEDGE ||
                opcode.has(OpcodeMask.ATOMIC | OpcodeMask.FLUSH | OpcodeMask.ATOMIC_WRITE);
            assertEquals(opcode.name().contains("ONLY") || opcode.name().contains("FIRST") || singlePacket,
                opcode.has(OpcodeMask.START), opcode.name());
            assertEquals(opcode.name().contains("IMMEDIATE"), opcode.has(OpcodeMask.IMMDT), opcode.name());
            assertEquals(opcode.name().contains("INVALIDATE"), opcode.has(OpcodeMask.IETH), opcode.name());
        }
    }

    @Test
    void shouldLayOutHeadersInSpecificationOrder()
    {
        assertLayout(Opcode.RC_SEND_MIDDLE, 12);
        assertLayout(Opcode.RC_RDMA_WRITE_FIRST, 28, OpcodeMask.RETH, 12);
        assertLayout(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 32, OpcodeMask.RETH, 12, OpcodeMask.IMMDT, 28);
        assertLayout(Opcode.UC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 16, OpcodeMask.IMMDT, 12);
        assertLayout(Opcode.RC_RDMA_READ_REQUEST, 28, OpcodeMask.RETH, 12);
        assertLayout(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, 12);
        assertLayout(Opcode.RC_RDMA_READ_RESPONSE_LAST, 16, OpcodeMask.AETH, 12);
        assertLayout(Opcode.RC_ACKNOWLEDGE, 16, OpcodeMask.AETH, 12);
        assertLayout(Opcode.RC_ATOMIC_ACKNOWLEDGE, 24, OpcodeMask.AETH, 12, OpcodeMask.ATOMIC_ACK_ETH, 16);
        assertLayout(Opcode.RC_COMPARE_SWAP, 40, OpcodeMask.ATOMIC_ETH, 12);
        assertLayout(Opcode.RC_SEND_ONLY_WITH_INVALIDATE, 16, OpcodeMask.IETH, 12);
        assertLayout(Opcode.RC_FLUSH, 32, OpcodeMask.FETH, 12, OpcodeMask.RETH, 16);
        assertLayout(Opcode.UD_SEND_ONLY, 20, OpcodeMask.DETH, 12);
        assertLayout(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, 24, OpcodeMask.DETH, 12, OpcodeMask.IMMDT, 20);
        assertLayout(Opcode.CNP, 28, OpcodeMask.CNP_RESERVED, 12);
    }

    @Test
    void shouldSayOnlyAbsentHeadersAreAbsent()
    {
        for (final Opcode opcode : Opcode.values())
        {
            for (int bit = 1; bit <= OpcodeMask.CNP_RESERVED; bit <<= 1)
            {
                if ((OpcodeMask.HEADERS & bit) != 0)
                {
                    assertEquals(opcode.has(bit), opcode.offset(bit) >= 0, opcode + " header " + bit);
                }
            }
        }
    }

    private static void assertLayout(final Opcode opcode, final int headerLength, final int... headerAndOffset)
    {
        assertEquals(headerLength, opcode.headerLength(), opcode.name());
        assertEquals(0, opcode.offset(OpcodeMask.BTH));
        int headers = OpcodeMask.BTH;
        for (int i = 0; i < headerAndOffset.length; i += 2)
        {
            assertEquals(headerAndOffset[i + 1], opcode.offset(headerAndOffset[i]), opcode.name());
            headers |= headerAndOffset[i];
        }
        assertEquals(headers, opcode.mask() & OpcodeMask.HEADERS, opcode.name());
    }
}
