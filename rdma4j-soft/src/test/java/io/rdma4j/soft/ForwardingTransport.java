package io.rdma4j.soft;

import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.transport.QpTransport;
import io.rdma4j.soft.wire.PacketInfo;

/**
 * A QP's real transport behind a test's: a test overrides what it scripts or breaks and leaves the rest to
 * the transport.
 */
abstract class ForwardingTransport implements QpTransport
{
    private final QpTransport transport;

    ForwardingTransport(final QpTransport transport)
    {
        this.transport = transport;
    }

    @Override
    public void kick()
    {
        transport.kick();
    }

    @Override
    public void onPacket(final PacketInfo packet, final DatagramInfo datagram)
    {
        transport.onPacket(packet, datagram);
    }

    @Override
    public long onTimer(final long nowNs)
    {
        return transport.onTimer(nowNs);
    }

    @Override
    public void flush()
    {
        transport.flush();
    }

    @Override
    public void reset()
    {
        transport.reset();
    }

    @Override
    public void attributesChanged()
    {
        transport.attributesChanged();
    }
}
