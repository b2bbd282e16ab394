package io.rdma4j.tools;

import io.rdma4j.soft.cm.mad.CmDreq;
import io.rdma4j.soft.cm.mad.CmMad;
import io.rdma4j.soft.cm.mad.CmMra;
import io.rdma4j.soft.cm.mad.CmRep;
import io.rdma4j.soft.cm.mad.CmReq;
import io.rdma4j.soft.cm.mad.CmaHeader;
import io.rdma4j.soft.cm.mad.ServiceId;
import io.rdma4j.soft.cm.mad.SidrRep;
import io.rdma4j.soft.cm.mad.SidrReq;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.soft.wire.DethFlyweight;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.PacketBuilder;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Mtu;
import jdk.net.ExtendedSocketOptions;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Issue 41's attacker with no device: a UDP socket on port 4791 of an address of this JVM's own that no device
 * holds, sending connection manager MADs as RoCEv2 datagrams to QP1 (UD SEND_ONLY, the GSI Q_Key, a valid
 * ICRC), each built with the soft device's own flyweights ({@link CmReq}, {@link CmMra}, {@link SidrReq}) and
 * {@link PacketBuilder}. It sends what rdma_cm would send to start a connection (a REQ, a SIDR_REQ), then
 * answers each REP with an MRA asking for the longest deferral the field holds (service timeout 31: 4.096 us x
 * 2^31, about 2.4 hours) and never sends the RTU: a connection request that never completes, at the cost of two
 * datagrams. What it counts (REPs answered, SIDR_REPs, DREQs) is what the server did with the slot.
 */
final class MadForger implements AutoCloseable
{
    /** The named TestNet subnet of the forgers' addresses (issue 41), where no device is. */
    static final int SUBNET = 41;
    /** The longest deferral an MRA's 5-bit field can ask for. */
    static final int LONGEST_SERVICE_TIMEOUT = 31;

    private static final int ROCE_PORT = 4791;
    private static final int MAD_OFFSET = Opcode.UD_SEND_ONLY.headerLength();
    private static final int DATAGRAM_LENGTH = PacketBuilder.length(Opcode.UD_SEND_ONLY, CmMad.MAD_LENGTH);
    private static final int GSI_QPN = 1;
    /** A QP number each REQ claims and the forger never makes. */
    private static final int CLAIMED_QPN = 0x00BEEF;
    private static final int HOP_LIMIT = Ipv4.DEFAULT_HOP_LIMIT;
    /** The CM timeouts rdma_cm puts in a REQ (4.096 us x 2^20). */
    private static final int CM_RESPONSE_TIMEOUT = 20;
    private static final int MAX_CM_RETRIES = 15;

    private final InetAddress local;
    private final DatagramSocket socket;
    private final PacketBuilder builder = new PacketBuilder();
    private final PacketInfo spec = new PacketInfo();
    private final MemorySegment madSegment = MemorySegment.ofArray(new byte[CmMad.MAD_LENGTH]);
    private final byte[] out = new byte[DATAGRAM_LENGTH];
    private final byte[] in = new byte[2048];
    private final MemorySegment inSegment = MemorySegment.ofArray(in);
    /** Each REQ's local comm id, and the server's comm id once its REP named it (0 before). */
    private final Map<Integer, Integer> requests = new HashMap<>();
    private final Set<Integer> sidrRequests = new HashSet<>();
    private final Set<Integer> sidrAnswered = new HashSet<>();
    private final Set<Integer> disconnected = new HashSet<>();
    private int mrasSent;
    private int psn;

    private MadForger(final InetAddress local) throws IOException
    {
        this.local = local;
        socket = new DatagramSocket(null);
        // unconnected with DF set, Linux sends IP identification 0: the one the ICRC is computed with here
        socket.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
        socket.bind(new InetSocketAddress(local, ROCE_PORT));
    }

    /**
     * @param bind an address of this JVM's own that no device holds: the server answers it by UDP.
     * @return the forger, its socket bound to port 4791 there.
     */
    static MadForger open(final String bind) throws IOException
    {
        return new MadForger(InetAddress.ofLiteral(bind));
    }

    /**
     * Send {@code count} RC connection requests (rdma_cm's TCP port space) to a listener, each with a comm id
     * and a source port of its own.
     */
    void requests(final String server, final int port, final int count) throws IOException
    {
        final InetAddress to = InetAddress.ofLiteral(server);
        for (int i = 0; i < count; i++)
        {
            final int commId = newId(requests.keySet());
            requests.put(commId, 0);
            new CmMad().wrap(madSegment, 0).initHeader(CmMad.ATTR_REQ, tid(commId));
            final Gid src = Gid.fromIpv4(Ipv4.toInt(local));
            final Gid dst = Gid.fromIpv4(Ipv4.toInt(to));
            final CmReq req = new CmReq().wrap(madSegment, 0).localCommId(commId)
                .serviceId(ServiceId.of(ServiceId.PS_TCP, port)).localQpn(CLAIMED_QPN + requests.size())
                .responderResources(1).initiatorDepth(1).remoteCmResponseTimeout(CM_RESPONSE_TIMEOUT)
                .transportServiceType(0).startingPsn(commId & 0xFFFFFF)
                .localCmResponseTimeout(CM_RESPONSE_TIMEOUT).retryCount(7).partitionKey(0xFFFF)
                .pathMtu(Mtu.MTU_1024.value()).rnrRetryCount(7).maxCmRetries(MAX_CM_RETRIES)
                .primaryLocalPortLid(0xFFFF).primaryRemotePortLid(0xFFFF)
                .primaryLocalPortGidHigh(src.high()).primaryLocalPortGidLow(src.low())
                .primaryRemotePortGidHigh(dst.high()).primaryRemotePortGidLow(dst.low())
                .primaryHopLimit(HOP_LIMIT).primaryLocalAckTimeout(14);
            req.privateData(cmaHeader(to, 40_000 + requests.size()), CmaHeader.LENGTH);
            send(to);
        }
    }

    /**
     * Send one SIDR request (rdma_cm's UDP port space) to a listener; no message ever follows it.
     */
    void sidrRequest(final String server, final int port) throws IOException
    {
        final InetAddress to = InetAddress.ofLiteral(server);
        final int requestId = newId(sidrRequests);
        sidrRequests.add(requestId);
        new CmMad().wrap(madSegment, 0).initHeader(CmMad.ATTR_SIDR_REQ, tid(requestId));
        new SidrReq().wrap(madSegment, 0).requestId(requestId).partitionKey(0xFFFF)
            .serviceId(ServiceId.of(ServiceId.PS_UDP, port)).privateData(cmaHeader(to, 40_000), CmaHeader.LENGTH);
        send(to);
    }

    /**
     * Take what the server sends for up to {@code seconds}, answering each REP of a request of ours with one MRA
     * of the REP, until {@code count} REPs have been MRAed.
     *
     * @return how many REPs were MRAed.
     */
    int mraReplies(final int count, final long seconds) throws IOException
    {
        receiveUntil(() -> mrasSent >= count, seconds);
        return mrasSent;
    }

    /**
     * Take what the server sends for up to {@code seconds}, until it has answered {@code count} SIDR requests.
     *
     * @return how many it answered (a SIDR_REP of status 0).
     */
    int sidrReplies(final int count, final long seconds) throws IOException
    {
        receiveUntil(() -> sidrAnswered.size() >= count, seconds);
        return sidrAnswered.size();
    }

    /**
     * Take what the server sends for up to {@code seconds}, until it has disconnected (a DREQ) {@code count} of
     * the connections its REPs offered; REPs that come meanwhile are MRAed too.
     *
     * @return how many it disconnected.
     */
    int disconnects(final int count, final long seconds) throws IOException
    {
        receiveUntil(() -> disconnected.size() >= count, seconds);
        return disconnected.size();
    }

    /** @return the MRAs sent: one for each request of ours the server answered with a REP. */
    int mrasSent()
    {
        return mrasSent;
    }

    private void receiveUntil(final BooleanSupplier done, final long seconds) throws IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        final DatagramPacket packet = new DatagramPacket(in, in.length);
        while (!done.getAsBoolean())
        {
            final long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0)
            {
                return;
            }
            socket.setSoTimeout((int)Math.max(1, left));
            try
            {
                packet.setLength(in.length);
                socket.receive(packet);
            }
            catch (final SocketTimeoutException ex)
            {
                return;
            }
            if (packet.getLength() >= MAD_OFFSET + CmMad.MAD_LENGTH &&
                CmMad.looksLikeCm(inSegment, MAD_OFFSET, packet.getLength() - MAD_OFFSET))
            {
                onMad(packet.getAddress());
            }
        }
    }

    private void onMad(final InetAddress from) throws IOException
    {
        switch (CmMad.attributeId(inSegment, MAD_OFFSET))
        {
            case CmMad.ATTR_REP ->
            {
                final CmRep rep = new CmRep().wrap(inSegment, MAD_OFFSET);
                final Integer known = requests.get(rep.remoteCommId());
                if (known == null)
                {
                    return;
                }
                if (known == 0)
                {
                    // the first REP of this request: ask for all the time there is, once, and never send the RTU
                    requests.put(rep.remoteCommId(), rep.localCommId());
                    final long tid = new CmMad().wrap(inSegment, MAD_OFFSET).transactionId();
                    new CmMad().wrap(madSegment, 0).initHeader(CmMad.ATTR_MRA, tid);
                    new CmMra().wrap(madSegment, 0).localCommId(rep.remoteCommId()).remoteCommId(rep.localCommId())
                        .messageMraed(CmMra.MESSAGE_REP).serviceTimeout(LONGEST_SERVICE_TIMEOUT);
                    send(from);
                    mrasSent++;
                }
            }
            case CmMad.ATTR_DREQ ->
            {
                final CmDreq dreq = new CmDreq().wrap(inSegment, MAD_OFFSET);
                if (requests.containsKey(dreq.remoteCommId()))
                {
                    disconnected.add(dreq.remoteCommId());
                }
            }
            case CmMad.ATTR_SIDR_REP ->
            {
                final SidrRep rep = new SidrRep().wrap(inSegment, MAD_OFFSET);
                if (sidrRequests.contains(rep.requestId()) && rep.status() == 0)
                {
                    sidrAnswered.add(rep.requestId());
                }
            }
            default ->
            {
                // REJ, MRA of a REQ, DREP: nothing to answer
            }
        }
    }

    /** The rdma_cm header a REQ's and a SIDR_REQ's private data start with: IPv4, both addresses, our port. */
    private byte[] cmaHeader(final InetAddress to, final int sourcePort)
    {
        final byte[] block = new byte[CmaHeader.LENGTH];
        new CmaHeader().wrap(MemorySegment.ofArray(block), 0).version(0).ipVersion(CmaHeader.IPV4)
            .sourcePort(sourcePort).sourceIpv4(Ipv4.toInt(local)).destinationIpv4(Ipv4.toInt(to));
        return block;
    }

    /** The MAD in {@link #mad}, as a UD SEND_ONLY from our QP1 to the server's. */
    private void send(final InetAddress to) throws IOException
    {
        spec.clear().network(Ipv4.toInt(local), ROCE_PORT, Ipv4.toInt(to), ROCE_PORT, 0).dontFragment(true)
            .opcode(Opcode.UD_SEND_ONLY).destQp(GSI_QPN).ackReq(true).psn(psn).qkey(DethFlyweight.GSI_QKEY)
            .srcQp(GSI_QPN);
        psn = (psn + 1) & 0xFFFFFF;
        final int length = builder.build(spec, madSegment, MemorySegment.ofArray(out), 0);
        socket.send(new DatagramPacket(out, length, to, ROCE_PORT));
    }

    private static int newId(final Set<Integer> taken)
    {
        int id;
        do
        {
            id = ThreadLocalRandom.current().nextInt();
        }
        while (id == 0 || taken.contains(id));
        return id;
    }

    private static long tid(final int commId)
    {
        return 0x4100_0000_0000_0000L | (commId & 0xFFFFFFFFL);
    }

    @Override
    public void close()
    {
        socket.close();
    }
}
