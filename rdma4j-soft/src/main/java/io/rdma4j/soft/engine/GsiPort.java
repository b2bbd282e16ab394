package io.rdma4j.soft.engine;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.soft.receive.MadPort;
import io.rdma4j.soft.wire.DethFlyweight;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.PacketBuilder;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.verbs.Gid;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantLock;

/**
 * QP1 of a device, the general services interface: MADs go out from here as UD SEND_ONLY packets
 * to a peer's QP1 with the GSI Q_Key, and MADs that passed the {@link io.rdma4j.soft.receive.ReceivePath}'s checks come
 * in here for the handler the connection manager installs.
 */
final class GsiPort implements MadPort
{

    private final SoftEngine engine;
    private final ReentrantLock sendLock = new ReentrantLock();
    private final ByteBuffer txBuffer = ByteBuffer.allocateDirect(512);
    private final MemorySegment txSegment = MemorySegment.ofBuffer(txBuffer);
    private final PacketInfo txSpec = new PacketInfo();
    private final PacketBuilder builder = new PacketBuilder();
    private int psn;
    private volatile GsiHandler handler;

    GsiPort(final SoftEngine engine)
    {
        this.engine = engine;
    }

    void handler(final GsiHandler newHandler)
    {
        handler = newHandler;
    }

    @Override
    public boolean hasHandler()
    {
        return handler != null;
    }

    /**
     * A MAD that passed every check: copy it out of the receive buffer, which the next datagram
     * overwrites, and give it to the handler (MADs are rare; the copy is the one allocation).
     */
    @Override
    public void onMad(final PacketInfo packet)
    {
        final GsiHandler current = handler;
        if (current == null)
        {
            engine.counters().increment(SoftCounter.GSI_DROPPED_MADS);
            return;
        }
        final byte[] mad = new byte[SoftEngine.MAD_LENGTH];
        MemorySegment.copy(packet.segment(), ValueLayout.JAVA_BYTE, packet.payloadOffset(), mad, 0,
            SoftEngine.MAD_LENGTH);
        engine.counters().increment(SoftCounter.GSI_RCVD_MADS);
        // MADs are rare and copied anyway: a GID per MAD is no cost on the data path
        final Gid source = packet.ipv6() ? new Gid(packet.sourceHigh(), packet.sourceLow()) :
            Gid.fromIpv4(packet.sourceAddress());
        current.onMad(engine, mad, source, packet.sourcePort());
    }

    boolean sendMad(final byte[] mad, final Gid destination)
    {
        sendLock.lock();
        try
        {
            txSpec.clear()
                .opcode(Opcode.UD_SEND_ONLY)
                .destQp(SoftEngine.GSI_QPN)
                .ackReq(true)
                .psn(psn)
                .qkey(DethFlyweight.GSI_QKEY)
                .srcQp(SoftEngine.GSI_QPN);
            engine.network(txSpec, destination);
            psn = (psn + 1) & 0xFFFFFF;
            MemorySegment.copy(mad, 0, txSegment, ValueLayout.JAVA_BYTE, Opcode.UD_SEND_ONLY.headerLength(),
                SoftEngine.MAD_LENGTH);
            final int length = builder.build(txSpec, SoftEngine.MAD_LENGTH, txSegment, 0);
            txBuffer.clear().limit(length);
            engine.counters().increment(SoftCounter.GSI_SENT_MADS);
            return engine.send(txBuffer, destination.toInet(), Ipv4.DEFAULT_HOP_LIMIT);
        }
        finally
        {
            sendLock.unlock();
        }
    }
}
