package io.rdma4j.verbs;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link UdPayload}: the sender's bytes are the ones after the GRH slot, as many as the completion
 * counted beyond it; completions that cannot be UD receives are refused.
 */
class UdPayloadTest
{
    private static WorkCompletion receive(final int byteLen)
    {
        return new WorkCompletion().set(1, WcStatus.SUCCESS, WcOpcode.RECV, byteLen, 0, 0x12, 0x34, WcFlags.GRH, 0);
    }

    @Test
    void shouldSliceTheBytesAfterTheGrh()
    {
        final MemorySegment buffer = Arena.ofAuto().allocate(128);
        buffer.set(ValueLayout.JAVA_BYTE, 40, (byte)'h');
        buffer.set(ValueLayout.JAVA_BYTE, 41, (byte)'i');

        final MemorySegment payload = UdPayload.of(buffer, receive(42));

        assertEquals(2, payload.byteSize());
        assertEquals('h', payload.get(ValueLayout.JAVA_BYTE, 0));
        assertEquals(buffer.address() + 40, payload.address());
    }

    @Test
    void shouldRefuseWhatCannotBeAUdReceive()
    {
        final MemorySegment buffer = Arena.ofAuto().allocate(128);
        assertEquals(Errno.EINVAL, assertThrows(RdmaException.class, () -> UdPayload.of(buffer, receive(8))).errno());
        assertEquals(Errno.EINVAL, assertThrows(RdmaException.class, () -> UdPayload.of(buffer, receive(200))).errno());
        final WorkCompletion send = new WorkCompletion().set(1, WcStatus.SUCCESS, WcOpcode.SEND, 64, 0, 1, 0, 0, 0);
        assertEquals(Errno.EINVAL, assertThrows(RdmaException.class, () -> UdPayload.of(buffer, send)).errno());
    }
}
