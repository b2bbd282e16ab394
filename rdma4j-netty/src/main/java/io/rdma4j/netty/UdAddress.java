package io.rdma4j.netty;

import java.io.Serial;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The sender of a datagram an {@link RdmaDatagramChannel} received: its IP address and the number of the UD QP
 * that sent it, which is where a reply goes. A UD packet carries no port, only its source QP number; the port of
 * this address is that number's low 16 bits, so that senders on one host are told apart (as keys, in logs), and a
 * {@code DatagramPacket} written to this very address reaches the sender's channel. A plain
 * {@code InetSocketAddress} with the same address and port does not: the QP number is more than a port holds.
 */
public final class UdAddress extends InetSocketAddress
{
    @Serial
    private static final long serialVersionUID = 1L;

    private final int qpNum;

    /**
     * @param address the sender's IP address (the source of the packet's GRH).
     * @param qpNum   the sender's QP number (the completion's source QP).
     */
    public UdAddress(final InetAddress address, final int qpNum)
    {
        super(address, qpNum & 0xFFFF);
        this.qpNum = qpNum;
    }

    /**
     * @return the sender's QP number, 24 bits.
     */
    public int qpNum()
    {
        return qpNum;
    }

    @Override
    public String toString()
    {
        return super.toString() + " (QP " + qpNum + ")";
    }
}
