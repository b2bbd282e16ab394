package io.rdma4j.tools.perf.perftest;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * perftest's exchange over its TCP connection, one side of it. Every exchange is symmetric: both sides send a
 * message of the same size, the client writing first and the server reading first, so neither waits on the other
 * forever. The server parses the client's QP data before it sends its own, so a client that sent none (or
 * garbage) is never told this side's QPNs, PSNs, rkey and buffer address. perftest reads each message with one
 * {@code read} of exactly its size, so each goes out in one write.
 * <p>
 * The order of a run: versions, page and cache-line sizes, MTU, then the QPs' data as many times as the test
 * asks (the later exchanges of the same data are perftest's barriers), the bandwidth report where the test has
 * one, and at the end a last exchange and {@code "done"}.
 * <p>
 * With {@code -R} ({@link #overRdmaCm}) the order and the messages are the same, each one SEND, except that the QPs'
 * data goes as perftest's binary struct ({@link PerftestDest#encodeStruct}) and no {@code "done"} follows.
 */
public final class PerftestChannel
{
    /** What each side writes before closing (with its NUL). */
    static final byte[] DONE = "done\0".getBytes(StandardCharsets.US_ASCII);
    /** The MTU goes as decimal text of {@code enum ibv_mtu} in two bytes (perftest 5.31 and later). */
    static final int MTU_BYTES = 2;

    private final PerftestLink link;
    private final boolean client;
    /** The GID index the struct carries with -R; below -1 on TCP, where the QPs' data is text. */
    private final int structGidIndex;
    private String remoteVersion;

    /**
     * @param in     the connection's input.
     * @param out    its output; each message is flushed as it is complete.
     * @param client true for the side that connected (it writes first in each exchange).
     */
    public PerftestChannel(final DataInputStream in, final DataOutputStream out, final boolean client)
    {
        this(new PerftestLink()
        {
            @Override
            public void send(final byte[] message) throws IOException
            {
                out.write(message);
                out.flush();
            }

            @Override
            public byte[] receive(final int size) throws IOException
            {
                final byte[] message = new byte[size];
                in.readFully(message);
                return message;
            }
        }, client, Integer.MIN_VALUE);
    }

    private PerftestChannel(final PerftestLink link, final boolean client, final int structGidIndex)
    {
        this.link = link;
        this.client = client;
        this.structGidIndex = structGidIndex;
    }

    /**
     * perftest's exchange with {@code -R}: over an rdma_cm-connected QP, the QPs' data as binary structs.
     *
     * @param link     the QP's SEND and RECV.
     * @param client   true for the side that connected.
     * @param gidIndex the GID index this side uses, which its structs carry.
     * @return the channel.
     */
    public static PerftestChannel overRdmaCm(final PerftestLink link, final boolean client, final int gidIndex)
    {
        return new PerftestChannel(link, client, gidIndex);
    }

    private boolean structs()
    {
        return structGidIndex >= -1;
    }

    /** How a message the peer sent is read; throws if it is not what the exchange expects. */
    @FunctionalInterface
    interface Reader<T>
    {
        T read(byte[] message) throws IOException;
    }

    /**
     * One exchange: this side's message for the peer's of the same size.
     *
     * @param mine this side's message.
     * @return the peer's.
     * @throws IOException if the connection broke.
     */
    byte[] exchange(final byte[] mine) throws IOException
    {
        return exchange(mine, theirs -> theirs);
    }

    /**
     * One exchange whose answer is read before this side sends: the server reads the client's message and, if it
     * does not parse, sends nothing (the QPs' data goes to no client that sent none of its own).
     *
     * @param mine   this side's message.
     * @param reader how the peer's is read.
     * @return the peer's, read.
     * @throws IOException if the connection broke, or what the reader throws.
     */
    <T> T exchange(final byte[] mine, final Reader<T> reader) throws IOException
    {
        if (client)
        {
            link.send(mine);
            return reader.read(link.receive(mine.length));
        }
        final T theirs = reader.read(link.receive(mine.length));
        link.send(mine);
        return theirs;
    }

    /**
     * Swap versions and check the peer's, as perftest does first.
     *
     * @return the peer's version string.
     * @throws IOException if the connection broke, or {@link PerftestException} for a peer older than 5.70.
     */
    public String versions() throws IOException
    {
        remoteVersion = PerftestVersion.decode(exchange(PerftestVersion.encode(PerftestVersion.OURS)));
        PerftestVersion.check(remoteVersion);
        return remoteVersion;
    }

    /**
     * Swap the page size the buffers cycle over and the cache line size (each a 4-byte big-endian int); each side
     * then uses the larger of the two.
     *
     * @param cycleBuffer this side's cycle buffer (its page size).
     * @param cacheLine   this side's cache line size.
     * @return the larger cycle buffer and the larger cache line, in that order.
     * @throws IOException if the connection broke.
     */
    public int[] sysData(final int cycleBuffer, final int cacheLine) throws IOException
    {
        final int theirCycle = ByteBuffer.wrap(exchange(ByteBuffer.allocate(4).putInt(cycleBuffer).array())).getInt();
        final int theirLine = ByteBuffer.wrap(exchange(ByteBuffer.allocate(4).putInt(cacheLine).array())).getInt();
        return new int[] {Math.max(cycleBuffer, theirCycle), Math.max(cacheLine, theirLine)};
    }

    /**
     * Swap the ports' active MTUs, as {@code enum ibv_mtu} values (1 for 256 bytes to 5 for 4096) in text.
     *
     * @param mine this side's.
     * @return the path MTU both use: the smaller, or this side's when the peer's is no valid value.
     * @throws IOException if the connection broke.
     */
    public int mtu(final int mine) throws IOException
    {
        if (mine < 1 || mine > 9)
        {
            throw new IllegalArgumentException("enum ibv_mtu " + mine + " is not one digit");
        }
        final byte[] field = Arrays.copyOf(String.valueOf(mine).getBytes(StandardCharsets.US_ASCII), MTU_BYTES);
        final int theirs = leadingDecimal(exchange(field));
        return theirs >= 1 && theirs <= 5 && theirs < mine ? theirs : mine;
    }

    private static int leadingDecimal(final byte[] field)
    {
        int value = 0;
        int i = 0;
        while (i < field.length && field[i] >= '0' && field[i] <= '9')
        {
            value = value * 10 + field[i] - '0';
            i++;
        }
        return i == 0 ? -1 : value;
    }

    /**
     * Swap one QP's data (perftest's {@code ctx_hand_shake}), in the form with the GID.
     *
     * @param mine this side's.
     * @return the peer's.
     * @throws IOException if the connection broke, or {@link PerftestException} if the peer's does not parse.
     */
    public PerftestDest handshake(final PerftestDest mine) throws IOException
    {
        if (structs())
        {
            return exchange(mine.encodeStruct(structGidIndex), PerftestDest::decodeStruct);
        }
        return exchange(mine.encode(true), PerftestDest::decode);
    }

    /**
     * Swap bandwidth reports, field by field; the server's own report is not printed by anyone, the client's is
     * what the server prints.
     *
     * @param mine this side's report.
     * @return the peer's.
     * @throws IOException if the connection broke.
     */
    public BwReport bwReport(final BwReport mine) throws IOException
    {
        final byte[][] fields = mine.encode();
        final byte[][] theirs = new byte[BwReport.FIELDS][];
        for (int i = 0; i < fields.length; i++)
        {
            theirs[i] = exchange(fields[i]);
        }
        return BwReport.decode(theirs);
    }

    /**
     * The end of a run: one last exchange of the QP's data, then {@code "done"} on TCP (not with -R). perftest
     * reads no further, so the peer's {@code "done"} is never read.
     *
     * @param mine this side's QP data.
     * @throws IOException if the connection broke before the last exchange.
     */
    public void close(final PerftestDest mine) throws IOException
    {
        handshake(mine);
        if (!structs())
        {
            link.send(DONE);
        }
    }

    /**
     * @return the peer's version string, once {@link #versions()} ran.
     */
    public String remoteVersion()
    {
        return remoteVersion;
    }
}
