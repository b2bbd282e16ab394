package io.rdma4j.tools.perf;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.JoinFlags;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.cm.UdParam;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcFlags;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A {@code -M} run: one sender (the server) multicasts to a group that N receivers (the clients,
 * each a process with its own device) joined through the connection manager, and the same fan-out
 * over a multicast {@link DatagramChannel} is the baseline.
 * <ul>
 * <li>send_lat: the sender sends one message to the group, every receiver answers it by unicast, and
 * the figure is half the time until the last answer, as send_lat halves its round trip.</li>
 * <li>send_bw: the sender streams to the group; each receiver returns credits (SEND with immediate:
 * its index in the top 8 bits, its count in the low 24), and the sender stays within the window of
 * the slowest. The figure is the sender's rate; every receiver got every message.</li>
 * </ul>
 */
final class FanOutRun
{
    private static final long HIGHEST_NS = TimeUnit.SECONDS.toNanos(60);
    private static final long STALL_NS = TimeUnit.SECONDS.toNanos(20);
    private static final int COUNT_BITS = 24;
    private static final int COUNT_MASK = (1 << COUNT_BITS) - 1;
    /** Socket-buffer bytes of one stream in flight to each receiver, as the unicast UD stream allows. */
    private static final long WINDOW_BYTES = 1 << 20;
    private static final int PACKET_COST = 8192;

    private final PerfConfig cfg;
    private final InetAddress local;
    private final PrintWriter out;
    private final String progress;
    private final InetAddress group;
    private final int receivers;

    FanOutRun(final PerfConfig config, final InetAddress local, final PrintWriter out, final String progress)
        throws IOException
    {
        this.cfg = config;
        this.local = local;
        this.out = out;
        this.progress = progress;
        this.group = InetAddress.getByName(config.group());
        this.receivers = config.receivers();
        if (!group.isMulticastAddress())
        {
            throw new IOException("--group " + config.group() + " is not an IPv4 multicast address");
        }
    }

    void run() throws PerfException, IOException, InterruptedException
    {
        final EventChannel cm = RdmaCm.createEventChannel();
        try (RdmaPeer peer = new RdmaPeer(cfg))
        {
            final InetAddress address = local != null ? local : peer.endpoint(0).gid().toInet();
            final CmId id = cm.createId(null, PortSpace.UDP);
            AddressHandle groupAh = null;
            try
            {
                id.bindAddr(new InetSocketAddress(address, 0));
                groupAh = join(cm, id, peer);
                if (cfg.isClient())
                {
                    receive(peer, address);
                    peer.qp(0).detachMulticast(Gid.fromInet(group), 0);
                }
                else
                {
                    send(peer, groupAh, address);
                }
                id.leaveMulticast(new InetSocketAddress(group, 0));
            }
            catch (final RdmaException ex)
            {
                throw new PerfException("multicast: " + ex.getMessage(), ex);
            }
            finally
            {
                if (groupAh != null)
                {
                    groupAh.close();
                }
                id.close();
            }
        }
        finally
        {
            cm.close();
        }
    }

    /**
     * Join the group through the connection manager: the sender as a send-only member (its address
     * handle comes from the join), a receiver as a full member with its QP attached.
     *
     * @return the group's address handle on the sender, null on a receiver.
     */
    private AddressHandle join(final EventChannel cm, final CmId id, final RdmaPeer peer)
        throws PerfException, InterruptedException
    {
        peer.activateUd();
        id.joinMulticast(new InetSocketAddress(group, 0),
            cfg.isClient() ? JoinFlags.FULLMEMBER : JoinFlags.SENDONLY_FULLMEMBER, null);
        final CmEvent event = cm.getEvent(30, TimeUnit.SECONDS);
        if (event == null || event.type() != CmEventType.MULTICAST_JOIN)
        {
            final String what = event == null ? "nothing in 30 s" : event.type() + " status " + event.status();
            if (event != null)
            {
                event.ack();
            }
            throw new PerfException("joining " + group.getHostAddress() + ": expected MULTICAST_JOIN, got " + what);
        }
        final UdParam ud = event.udParam();
        event.ack();
        if (cfg.isClient())
        {
            peer.qp(0).attachMulticast(Gid.fromInet(group), 0);
            return null;
        }
        return peer.pd().createAh(ud.ahAttr());
    }

    /**
     * @return the interface that owns the address; for a 127.x.y.z that no interface lists (Linux
     * routes all of 127/8 to lo but lists 127.0.0.1 only), the loopback interface.
     */
    private static NetworkInterface interfaceOf(final InetAddress address) throws IOException
    {
        final NetworkInterface owner = NetworkInterface.getByInetAddress(address);
        if (owner != null)
        {
            return owner;
        }
        if (address.isLoopbackAddress())
        {
            for (final NetworkInterface candidate : NetworkInterface.networkInterfaces().toList())
            {
                if (candidate.isLoopback())
                {
                    return candidate;
                }
            }
        }
        throw new IOException("no multicast interface has the address " + address.getHostAddress());
    }

    // ---------------------------------------------------------------- the sender

    private void send(final RdmaPeer peer, final AddressHandle groupAh, final InetAddress address)
        throws PerfException, IOException, InterruptedException
    {
        final List<ControlChannel> controls = new ArrayList<>();
        try (DatagramChannel udp = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            udp.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
            udp.bind(new InetSocketAddress(address, 0));
            udp.setOption(StandardSocketOptions.IP_MULTICAST_IF, interfaceOf(address));
            udp.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true);
            udp.setOption(StandardSocketOptions.IP_MULTICAST_TTL, 1);
            udp.configureBlocking(cfg.events());
            try (ServerSocket listener = ControlChannel.listen(local, cfg.tcpPort()))
            {
                out.printf(Locale.ROOT, "# %s server: waiting for a client on TCP port %d (%d multicast receivers)%n",
                    cfg.test().label(), listener.getLocalPort(), receivers);
                out.flush();
                for (int i = 0; i < receivers; i++)
                {
                    final ControlChannel control = ControlChannel.accept(listener);
                    controls.add(control);
                    // the receiver's signature first: one that is no perf receiver of this test learns nothing
                    final String theirs = control.readSignature(signature());
                    control.out().writeUTF(signature());
                    if (theirs == null || !theirs.equals(signature()))
                    {
                        control.flush();
                        throw new PerfException("a receiver runs '" + (theirs == null ? "another test" : theirs) +
                            "' and the sender '" + signature() +
                            "': give all the same test and flags");
                    }
                    control.out().writeInt(i);
                    peer.endpoint(((InetSocketAddress)udp.getLocalAddress()).getPort()).write(control.out());
                }
            }
            // The receivers' answers and credits land here.
            peer.postRecvs(0, cfg.rxDepth(), cfg.maxSize());
            barrier(controls, 1);
            out.println(MachineLine.current().text());
            out.println(peer.deviceLine());
            out.println(header());
            out.flush();
            final Sender sender = new Sender(peer, groupAh, udp, new InetSocketAddress(group, cfg.tcpPort() + 1));
            for (final int size : cfg.sizes())
            {
                final String line;
                final int blocks = PerfRun.blocks(cfg.iterations());
                if (cfg.test() == PerfTest.SEND_LAT)
                {
                    final Histogram ours = new Histogram(HIGHEST_NS, 3);
                    final Histogram base = new Histogram(HIGHEST_NS, 3);
                    // warm both up, then alternate: a change in the machine's state lands on both halves alike
                    sender.rdmaPings(size, cfg.warmup(), null);
                    barrier(controls, 2);
                    sender.udpPings(size, cfg.warmup(), null);
                    barrier(controls, 3);
                    for (int b = 0; b < blocks; b++)
                    {
                        final int count = PerfRun.blockSize(cfg.iterations(), blocks, b);
                        sender.rdmaPings(size, count, ours);
                        barrier(controls, 2);
                        sender.udpPings(size, count, base);
                        barrier(controls, 3);
                    }
                    line = ResultLine.latency(cfg.test(), cfg.transport(), size, receivers, ours, base);
                }
                else
                {
                    if (cfg.warmup() > 0)
                    {
                        sender.rdmaStream(size, cfg.warmup());
                    }
                    barrier(controls, 4);
                    if (cfg.warmup() > 0)
                    {
                        sender.udpStream(size, cfg.warmup());
                    }
                    barrier(controls, 5);
                    long ours = 0;
                    long base = 0;
                    for (int b = 0; b < blocks; b++)
                    {
                        final int count = PerfRun.blockSize(cfg.iterations(), blocks, b);
                        ours += sender.rdmaStream(size, count);
                        barrier(controls, 4);
                        base += sender.udpStream(size, count);
                        barrier(controls, 5);
                    }
                    line = ResultLine.bandwidth(cfg.test(), cfg.transport(), size, receivers, cfg.iterations(), ours,
                        base);
                }
                out.println(line);
                out.flush();
                for (final ControlChannel control : controls)
                {
                    control.out().writeUTF(line);
                    control.flush();
                }
            }
            barrier(controls, 9);
        }
        finally
        {
            for (final ControlChannel control : controls)
            {
                control.close();
            }
        }
    }

    private static void barrier(final List<ControlChannel> controls, final int token) throws IOException
    {
        for (final ControlChannel control : controls)
        {
            control.out().writeInt(token);
            control.flush();
        }
        for (final ControlChannel control : controls)
        {
            final int theirs = control.in().readInt();
            if (theirs != token)
            {
                throw new IOException("control channel out of step: at barrier " + token + " a receiver is at " +
                    theirs);
            }
        }
    }

    private String signature()
    {
        return String.join(" ", cfg.test().label(), "UD", "mcast=" + receivers, "group=" + group.getHostAddress(),
            "sizes=" + cfg.sizes(), "n=" + cfg.iterations(), "warmup=" + cfg.warmup(), "rx=" + cfg.rxDepth(),
            "events=" + cfg.events());
    }

    private String header()
    {
        return String.format(Locale.ROOT, "# rdma4j perf %s: UD multicast %s to %d receivers, %d iterations after %d " +
            "warm-up, %s, soft device progress %s, rdma4j and baseline alternating in %d block(s)", cfg.test().label(),
            group.getHostAddress(), receivers, cfg.iterations(), cfg.warmup(), cfg.events() ?
                "completion events, baseline UDP blocking" : "busy polling, baseline UDP non-blocking busy polling",
            progress, PerfRun.blocks(cfg.iterations()));
    }

    /**
     * @return messages a stream may have beyond the slowest receiver's credit.
     */
    private long window(final int size)
    {
        final long packets = Math.max(1, (size + 4095) / 4096);
        return Math.max(1, Math.min(cfg.rxDepth(), WINDOW_BYTES / (packets * PACKET_COST)));
    }

    /**
     * The sender's loops, rdma4j's and the baseline's; the receivers' answers come back by unicast.
     */
    private final class Sender
    {
        private final RdmaPeer peer;
        private final DatagramChannel udp;
        private final SocketAddress udpGroup;
        private final SendWr wr = new SendWr();
        /** The stream's requests, {@link #wr}'s like: -l of them go in one chain (one, without -l). */
        private final SendWr[] list;
        private final ByteBuffer data;
        private final ByteBuffer small = ByteBuffer.allocateDirect(Long.BYTES);
        private final long[] credits = new long[receivers];
        private final IdleSpin spin = new IdleSpin();
        private long sendsPosted;
        private long sendsDone;
        private long recvsDone;

        Sender(final RdmaPeer peer, final AddressHandle groupAh, final DatagramChannel udp,
            final SocketAddress udpGroup)
        {
            this.peer = peer;
            this.udp = udp;
            this.udpGroup = udpGroup;
            this.data = ByteBuffer.allocateDirect(Math.max(cfg.maxSize(), Long.BYTES));
            wr.wrId(RdmaPeer.SEND_WRID).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .ud(groupAh, RdmaCm.MULTICAST_QPN, RdmaPeer.QKEY);
            list = new SendWr[cfg.postList()];
            for (int i = 0; i < list.length; i++)
            {
                list[i] = new SendWr().wrId(RdmaPeer.SEND_WRID).opcode(WrOpcode.SEND)
                    .ud(groupAh, RdmaCm.MULTICAST_QPN, RdmaPeer.QKEY);
            }
        }

        private void reap(final int n)
        {
            final WorkCompletion[] wcs = peer.completions();
            for (int i = 0; i < n; i++)
            {
                if (wcs[i].wrId() == RdmaPeer.RECV_WRID)
                {
                    recvsDone++;
                    if ((wcs[i].wcFlags() & WcFlags.WITH_IMM) != 0)
                    {
                        final int imm = wcs[i].immData();
                        final int index = imm >>> COUNT_BITS;
                        if (index < credits.length)
                        {
                            credits[index] = Math.max(credits[index], imm & COUNT_MASK);
                        }
                    }
                    peer.postRecvs(0, 1, cfg.maxSize());
                }
                else
                {
                    sendsDone++;
                }
            }
        }

        /**
         * {@code count} pings over rdma4j, recorded into {@code into} (null: warm-up, not recorded).
         */
        void rdmaPings(final int size, final int count, final Histogram into) throws PerfException, InterruptedException
        {
            wr.sge(peer.mr(), peer.sourceOffset(), size).sendFlags(SendFlags.SIGNALED |
                (size <= cfg.inline() ? SendFlags.INLINE : 0));
            for (int i = 0; i < count; i++)
            {
                final long start = System.nanoTime();
                final long want = recvsDone + receivers;
                peer.qp(0).postSend(wr);
                sendsPosted++;
                while (recvsDone < want || sendsDone < sendsPosted)
                {
                    reap(peer.await());
                }
                if (into != null)
                {
                    into.recordValue((System.nanoTime() - start) / 2);
                }
            }
        }

        long rdmaStream(final int size, final int count) throws PerfException, InterruptedException
        {
            final int flags = SendFlags.SIGNALED | (size <= cfg.inline() ? SendFlags.INLINE : 0);
            for (int i = 0; i < list.length; i++)
            {
                list[i].sge(peer.mr(), peer.sourceOffset(), size).sendFlags(flags);
            }
            Arrays.fill(credits, 0);
            final long window = window(size);
            final long base = sendsPosted;
            final long start = System.nanoTime();
            while (sendsDone - base < count || slowest() < count)
            {
                long room;
                while ((room = room(count - (sendsPosted - base), window - (sendsPosted - base - slowest()))) > 0)
                {
                    // as many as -l, the count, the depth and the slowest receiver's credit allow, in one chain
                    final int length = (int)Math.min(list.length, room);
                    peer.qp(0).postSend(RdmaLoops.chain(list, length));
                    sendsPosted += length;
                }
                reap(peer.await());
            }
            return System.nanoTime() - start;
        }

        /**
         * @return the messages the stream may post now: within what is left of the count, the send queue's
         *     depth and the slowest receiver's credit.
         */
        private long room(final long left, final long credit)
        {
            return Math.min(Math.min(left, cfg.txDepth() - (sendsPosted - sendsDone)), credit);
        }

        private long slowest()
        {
            long min = Long.MAX_VALUE;
            for (final long credit : credits)
            {
                min = Math.min(min, credit);
            }
            return min;
        }

        /**
         * {@code count} pings over the baseline's multicast socket, recorded as {@link #rdmaPings} records.
         */
        void udpPings(final int size, final int count, final Histogram into) throws IOException
        {
            for (int i = 0; i < count; i++)
            {
                final long start = System.nanoTime();
                data.clear().limit(Math.max(size, 1));
                sendAll(data, udpGroup);
                for (int r = 0; r < receivers; r++)
                {
                    data.clear();
                    receive(data);
                }
                if (into != null)
                {
                    into.recordValue((System.nanoTime() - start) / 2);
                }
            }
        }

        long udpStream(final int size, final int count) throws IOException
        {
            Arrays.fill(credits, 0);
            final long window = window(size);
            final long start = System.nanoTime();
            long sent = 0;
            while (slowest() < count)
            {
                while (sent < count && sent - slowest() < window)
                {
                    data.clear().limit(Math.max(size, 1));
                    sendAll(data, udpGroup);
                    sent++;
                }
                small.clear();
                receive(small);
                final long credit = small.getLong(0);
                final int index = (int)(credit >>> 32);
                if (index < credits.length)
                {
                    credits[index] = Math.max(credits[index], credit & 0xFFFFFFFFL);
                }
            }
            return System.nanoTime() - start;
        }

        private void sendAll(final ByteBuffer buffer, final SocketAddress to) throws IOException
        {
            long since = 0;
            while (udp.send(buffer, to) == 0)
            {
                since = idle(spin, since);
            }
        }

        private void receive(final ByteBuffer buffer) throws IOException
        {
            long since = 0;
            while (udp.receive(buffer) == null)
            {
                since = idle(spin, since);
            }
            spin.reset();
        }
    }

    private static long idle(final IdleSpin spin, final long since) throws IOException
    {
        spin.idle();
        final long now = System.nanoTime();
        if (since == 0)
        {
            return now;
        }
        if (now - since > STALL_NS)
        {
            throw new IOException("baseline UDP multicast: nothing for 20 s (a datagram was lost, or a peer stopped)");
        }
        return since;
    }

    // ---------------------------------------------------------------- a receiver

    private void receive(final RdmaPeer peer, final InetAddress address)
        throws PerfException, IOException, InterruptedException
    {
        try (ControlChannel control = ControlChannel.connect(cfg.serverName(), cfg.tcpPort());
             DatagramChannel groupSocket = DatagramChannel.open(StandardProtocolFamily.INET);
             DatagramChannel replies = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            control.out().writeUTF(signature());
            control.flush();
            final String theirs = control.in().readUTF();
            if (!theirs.equals(signature()))
            {
                throw new PerfException("the sender runs '" + theirs + "' and this receiver '" + signature() +
                    "': give all the same test and flags");
            }
            final int index = control.in().readInt();
            final PerfEndpoint sender = PerfEndpoint.read(control.in());
            peer.connect(sender);
            peer.postRecvs(0, cfg.rxDepth(), cfg.maxSize());
            groupSocket.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            groupSocket.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
            groupSocket.bind(new InetSocketAddress(group, cfg.tcpPort() + 1));
            groupSocket.join(group, interfaceOf(address));
            groupSocket.configureBlocking(cfg.events());
            replies.bind(new InetSocketAddress(address, 0));
            replies.configureBlocking(cfg.events());
            final Receiver receiver = new Receiver(peer, index, groupSocket, replies,
                new InetSocketAddress(sender.gid().toInet(), sender.udpPort()));
            control.barrier(1);
            out.println(MachineLine.current().text());
            out.println(peer.deviceLine());
            out.println(header());
            out.flush();
            for (final int size : cfg.sizes())
            {
                // the sender's sequence: both warm-ups, then the blocks, rdma4j's half of each first
                final int blocks = PerfRun.blocks(cfg.iterations());
                final boolean lat = cfg.test() == PerfTest.SEND_LAT;
                for (int b = -1; b < blocks; b++)
                {
                    final int count = b < 0 ? cfg.warmup() : PerfRun.blockSize(cfg.iterations(), blocks, b);
                    if (lat)
                    {
                        receiver.rdmaPongs(size, count);
                        control.barrier(2);
                        receiver.udpPongs(size, count);
                        control.barrier(3);
                    }
                    else
                    {
                        if (count > 0)
                        {
                            receiver.rdmaStream(size, count);
                        }
                        control.barrier(4);
                        if (count > 0)
                        {
                            receiver.udpStream(size, count);
                        }
                        control.barrier(5);
                    }
                }
                out.println(control.in().readUTF());
                out.flush();
            }
            control.barrier(9);
        }
    }

    /**
     * A receiver's loops: answer each message (send_lat) or return credits (send_bw).
     */
    private final class Receiver
    {
        private final RdmaPeer peer;
        private final int index;
        private final DatagramChannel groupSocket;
        private final DatagramChannel replies;
        private final SocketAddress sender;
        private final SendWr wr = new SendWr();
        private final ByteBuffer data;
        private final ByteBuffer small = ByteBuffer.allocateDirect(Long.BYTES);
        private final IdleSpin spin = new IdleSpin();
        private long sendsPosted;
        private long sendsDone;
        private long recvsDone;

        Receiver(final RdmaPeer peer, final int index, final DatagramChannel groupSocket,
            final DatagramChannel replies, final SocketAddress sender)
        {
            this.peer = peer;
            this.index = index;
            this.groupSocket = groupSocket;
            this.replies = replies;
            this.sender = sender;
            this.data = ByteBuffer.allocateDirect(Math.min(Math.max(cfg.maxSize(), Long.BYTES), 65_507));
            wr.wrId(RdmaPeer.SEND_WRID).ud(peer.ah(), peer.remote().qpns()[0], RdmaPeer.QKEY);
        }

        private void reap(final int n)
        {
            final WorkCompletion[] wcs = peer.completions();
            for (int i = 0; i < n; i++)
            {
                if (wcs[i].wrId() == RdmaPeer.RECV_WRID)
                {
                    recvsDone++;
                    peer.postRecvs(0, 1, cfg.maxSize());
                }
                else
                {
                    sendsDone++;
                }
            }
        }

        private void reply() throws PerfException, InterruptedException
        {
            while (sendsPosted - sendsDone >= cfg.txDepth())
            {
                reap(peer.await());
            }
            peer.qp(0).postSend(wr);
            sendsPosted++;
        }

        void rdmaPongs(final int size, final int total) throws PerfException, InterruptedException
        {
            wr.opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED | (size <= cfg.inline() ? SendFlags.INLINE : 0))
                .sge(peer.mr(), peer.sourceOffset(), size);
            for (int i = 0; i < total; i++)
            {
                final long want = recvsDone + 1;
                while (recvsDone < want)
                {
                    reap(peer.await());
                }
                reply();
            }
            while (sendsDone < sendsPosted)
            {
                reap(peer.await());
            }
        }

        void rdmaStream(final int size, final int count) throws PerfException, InterruptedException
        {
            if (count == 0)
            {
                return;
            }
            wr.opcode(WrOpcode.SEND_WITH_IMM).sendFlags(SendFlags.SIGNALED).sge(peer.mr(), peer.sourceOffset(), 4);
            final long batch = Math.max(1, window(size) / 4);
            final long base = recvsDone;
            long credited = 0;
            while (credited < count)
            {
                reap(peer.await());
                final long received = recvsDone - base;
                if (received - credited >= batch || received == count)
                {
                    wr.immData(index << COUNT_BITS | (int)received);
                    reply();
                    credited = received;
                }
            }
            while (sendsDone < sendsPosted)
            {
                reap(peer.await());
            }
        }

        void udpPongs(final int size, final int total) throws IOException
        {
            for (int i = 0; i < total; i++)
            {
                data.clear();
                receive(groupSocket, data);
                data.clear().limit(Math.max(size, 1));
                send(data);
            }
        }

        void udpStream(final int size, final int count) throws IOException
        {
            if (count == 0)
            {
                return;
            }
            final long batch = Math.max(1, window(size) / 4);
            long credited = 0;
            for (long received = 1; received <= count; received++)
            {
                data.clear();
                receive(groupSocket, data);
                if (received - credited >= batch || received == count)
                {
                    small.clear();
                    small.putLong(0, (long)index << 32 | received);
                    send(small);
                    credited = received;
                }
            }
        }

        private void send(final ByteBuffer buffer) throws IOException
        {
            long since = 0;
            while (replies.send(buffer, sender) == 0)
            {
                since = idle(spin, since);
            }
        }

        private void receive(final DatagramChannel channel, final ByteBuffer buffer) throws IOException
        {
            long since = 0;
            while (channel.receive(buffer) == null)
            {
                since = idle(spin, since);
            }
            spin.reset();
        }
    }
}
