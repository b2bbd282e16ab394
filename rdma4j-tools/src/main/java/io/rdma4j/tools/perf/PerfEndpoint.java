package io.rdma4j.tools.perf;

import io.rdma4j.verbs.Gid;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * What one side tells the other before the run, as perftest's exchange does: its QPs' numbers and
 * first PSNs, its GID, the buffer the peer may READ, WRITE or add to (address, rkey, length), and
 * the UDP port of its baseline socket.
 *
 * @param qpns    the QP numbers, one per QP.
 * @param psns    the first PSN of each QP's send queue.
 * @param gid     the port's GID (the soft device's address).
 * @param address the remote-access buffer's virtual address.
 * @param rkey    its rkey.
 * @param length  its length in bytes.
 * @param udpPort the baseline DatagramChannel's port on the same address.
 */
public record PerfEndpoint(int[] qpns, int[] psns, Gid gid, long address, int rkey, long length, int udpPort)
{
    /** Refuses an exchange that claims more QPs than any run makes: the peer is not a perf tool. */
    private static final int MAX_QPS = 1024;

    /**
     * @param out where to write this endpoint.
     * @throws IOException if writing fails.
     */
    public void write(final DataOutputStream out) throws IOException
    {
        out.writeInt(qpns.length);
        for (int i = 0; i < qpns.length; i++)
        {
            out.writeInt(qpns[i]);
            out.writeInt(psns[i]);
        }
        out.write(gid.toBytes());
        out.writeLong(address);
        out.writeInt(rkey);
        out.writeLong(length);
        out.writeInt(udpPort);
        out.flush();
    }

    /**
     * @param in where the peer's endpoint arrives.
     * @return the peer's endpoint.
     * @throws IOException if reading fails or the count of QPs is not believable.
     */
    public static PerfEndpoint read(final DataInputStream in) throws IOException
    {
        final int count = in.readInt();
        if (count < 1 || count > MAX_QPS)
        {
            throw new IOException("the peer announced " + count + " QPs (1.." + MAX_QPS +
                " expected): not rdma4j perf?");
        }
        final int[] qpns = new int[count];
        final int[] psns = new int[count];
        for (int i = 0; i < count; i++)
        {
            qpns[i] = in.readInt();
            psns[i] = in.readInt();
        }
        final byte[] gid = new byte[16];
        in.readFully(gid);
        return new PerfEndpoint(qpns, psns, Gid.of(gid), in.readLong(), in.readInt(), in.readLong(), in.readInt());
    }
}
