package io.rdma4j.soft.link;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * One datagram put on a {@link MemoryNetwork}, with the IP and UDP header fields the network
 * carries: what a tap sees, what a fault filter judges, and what a test injects.
 *
 * @param sequence         the network's count of datagrams sent before this one, from 0; -1 when injected.
 * @param source           the sender's address.
 * @param sourcePort       the sender's UDP port.
 * @param destination      the unicast address or group it was sent to.
 * @param ttl              the IP TTL it was sent with.
 * @param ipIdentification the IPv4 identification field it was sent with.
 * @param bytes            the UDP payload; copied on the way in and out, so the record stays immutable.
 */
public record SentDatagram(
    long sequence,
    InetAddress source,
    int sourcePort,
    InetAddress destination,
    int ttl,
    int ipIdentification,
    byte[] bytes)
{
    /**
     * Copy the bytes, so later changes to the caller's array are not seen.
     */
    public SentDatagram
    {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(destination, "destination");
        bytes = bytes.clone();
    }

    /**
     * @return a copy of the UDP payload.
     */
    @Override
    public byte[] bytes()
    {
        return bytes.clone();
    }

    /**
     * @return a read-only view of the UDP payload, without copying.
     */
    public ByteBuffer buffer()
    {
        return ByteBuffer.wrap(bytes).asReadOnlyBuffer();
    }

    /**
     * @return the payload's length in bytes.
     */
    public int length()
    {
        return bytes.length;
    }

    /**
     * The payload without a copy, for the network, which never changes it.
     */
    byte[] array()
    {
        return bytes;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public boolean equals(final Object other)
    {
        return other instanceof SentDatagram that &&
            sequence == that.sequence &&
            sourcePort == that.sourcePort &&
            ttl == that.ttl &&
            ipIdentification == that.ipIdentification &&
            source.equals(that.source) &&
            destination.equals(that.destination) &&
            Arrays.equals(bytes, that.bytes);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public int hashCode()
    {
        return Objects.hash(sequence, source, sourcePort, destination, ttl, ipIdentification) * 31 +
            Arrays.hashCode(bytes);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String toString()
    {
        return "SentDatagram{#" + sequence + " " + source.getHostAddress() + ":" + sourcePort + " -> " +
            destination.getHostAddress() + " ttl=" + ttl + " id=" + ipIdentification + " " + bytes.length + " bytes}";
    }
}
