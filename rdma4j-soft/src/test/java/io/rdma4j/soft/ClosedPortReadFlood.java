package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.link.socket.UdpLinks;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.PacketBuilder;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.WorkCompletion;
import jdk.net.ExtendedSocketOptions;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;

/**
 * A device whose RC QP is asked, by a forger on its peer's address, for a large RDMA READ whose responses go
 * to that peer's port 4791, where nothing listens: every response draws an ICMP port unreachable (as many as
 * the kernel's ICMP rate limit lets out). Beside it, a UD QP of the same device that another device pings:
 * the ping's wait, and what the device did meanwhile, tell whether the READ deafened it.
 * <p>
 * Over the Linux socket only (no same-host path), on three loopback addresses: the victim device, the peer's address
 * (the forger's socket, bound there to an ephemeral port, never reads) and the pinging device.
 */
final class ClosedPortReadFlood implements AutoCloseable
{
    static final int MTU = 1024;
    static final int PEER_QPN = 0x99;
    static final int FIRST_PSN = 5000;

    final InetAddress victimAddress;
    final InetAddress peerAddress;
    final RcEndpoint victim;
    final UdEndpoint victimUd;
    final UdEndpoint pinger;
    final int readLength;
    private final Context victimContext;
    private final Context pingerContext;
    private final DatagramChannel forger;
    private final AddressHandle toVictim;
    private final AddressHandle toPinger;
    private final int forgerPort;
    private final PacketBuilder builder = new PacketBuilder();

    /** What one ping saw. */
    record Ping(long waitNs, long roundTripNs, long readResponsesBefore, long readResponsesAtReceipt,
        long receiveSyscallsDuring)
    {
    }

    /**
     * @param addresses three loopback addresses of this JVM's: the victim's, its QP's peer (closed) and the
     *                  pinger's.
     * @param readLength the READ's DMA length.
     */
    ClosedPortReadFlood(final InetAddress[] addresses, final int readLength) throws IOException
    {
        this.victimAddress = addresses[0];
        this.peerAddress = addresses[1];
        this.readLength = readLength;
        // the Linux socket whatever rdma4j.soft.socket says: its receives are those that meet the ICMP errors
        victimContext = SoftDevice.builder("flood-victim", victimAddress).sameHost(false)
            .link(a -> UdpLinks.open(UdpLinks.Socket.LINUX, a, Link.ROCE_V2_PORT)).build().open();
        pingerContext = SoftDevice.builder("flood-pinger", addresses[2]).sameHost(false)
            .link(a -> UdpLinks.open(UdpLinks.Socket.LINUX, a, Link.ROCE_V2_PORT)).build().open();
        victim = new RcEndpoint(victimContext, QpType.RC, readLength, 16);
        victimUd = new UdEndpoint(victimContext);
        pinger = new UdEndpoint(pingerContext);
        victim.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(RcEndpoint.ALL_REMOTE));
        victim.qp.modify(new QpAttr().state(QpState.RTR).ahAttr(AhAttr.global(Gid.fromInet(peerAddress), 64))
            .pathMtu(Mtu.MTU_1024).destQpNum(PEER_QPN).rqPsn(FIRST_PSN).maxDestRdAtomic(16).minRnrTimer(1));
        victim.qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7)
            .maxRdAtomic(1));
        toVictim = pinger.ahTo(victimUd.gid());
        toPinger = victimUd.ahTo(pinger.gid());
        forger = DatagramChannel.open();
        forger.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
        forger.bind(new InetSocketAddress(peerAddress, 0));
        forgerPort = ((InetSocketAddress)forger.getLocalAddress()).getPort();
    }

    /** @return the READ's response packets. */
    long readPackets()
    {
        return (readLength + MTU - 1) / MTU;
    }

    /**
     * Send READ request {@code index}, of the whole region, at PSN {@link #FIRST_PSN} + index x
     * {@link #readPackets}: the responder takes up to max_dest_rd_atomic (16) of them, in order; sent again, a
     * request is a duplicate, which restarts its responses.
     *
     * @param index which READ: 0 for the first.
     */
    void sendRead(final int index) throws IOException
    {
        final PacketInfo spec = new PacketInfo()
            .network(Ipv4.toInt(peerAddress), forgerPort, Ipv4.toInt(victimAddress), Link.ROCE_V2_PORT, 0)
            .dontFragment(true).opcode(Opcode.RC_RDMA_READ_REQUEST).destQp(victim.qp.qpNum())
            .psn((int)(FIRST_PSN + index * readPackets())).ackReq(true).va(victim.mr.segment().address())
            .rkey(victim.mr.rkey()).dmaLength(readLength);
        final byte[] packet = new byte[PacketBuilder.length(Opcode.RC_RDMA_READ_REQUEST, 0)];
        final int length = builder.build(spec, 0, MemorySegment.ofArray(packet), 0);
        forger.send(ByteBuffer.wrap(packet, 0, length), new InetSocketAddress(victimAddress, Link.ROCE_V2_PORT));
    }

    /** @return packets the victim's RC QP sent: its READ responses. */
    long readResponsesSent()
    {
        return victim.qp.counters().get(SoftCounter.SENT_PKTS.counterName());
    }

    long victimCounter(final SoftCounter counter)
    {
        return SoftEngine.of(victimContext).counters().get(counter);
    }

    long duplicatesTaken()
    {
        return victim.qp.counters().get(SoftCounter.DUPLICATE_REQUEST.counterName());
    }

    /**
     * One UD ping from the pinger to the victim's UD QP, answered by the victim's application (this thread) once
     * its receive completes.
     *
     * @param timeoutMs how long to wait for each half.
     * @return what it saw, or null if a half did not complete in time.
     */
    Ping ping(final long timeoutMs)
    {
        victimUd.postRecvs(1);
        pinger.postRecvs(1);
        final long syscallsBefore = victimCounter(SoftCounter.UDP_RECV_SYSCALLS);
        final long before = readResponsesSent();
        final long start = System.nanoTime();
        pinger.send(toVictim, victimUd.qp.qpNum(), UdEndpoint.QKEY, "ping", 1);
        final List<WorkCompletion> received = receiveOnly(victimUd, timeoutMs);
        final long arrived = System.nanoTime();
        final long atReceipt = readResponsesSent();
        final long syscalls = victimCounter(SoftCounter.UDP_RECV_SYSCALLS) - syscallsBefore;
        if (received == null)
        {
            return null;
        }
        victimUd.send(toPinger, pinger.qp.qpNum(), UdEndpoint.QKEY, "pong", 2);
        if (receiveOnly(pinger, timeoutMs) == null)
        {
            return null;
        }
        return new Ping(arrived - start, System.nanoTime() - start, before, atReceipt, syscalls);
    }

    /** Poll for a receive completion, taking the send completions on the way. */
    private static List<WorkCompletion> receiveOnly(final UdEndpoint endpoint, final long timeoutMs)
    {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (System.nanoTime() < deadline)
        {
            final List<WorkCompletion> wcs = endpoint.poll(1, 1);
            if (!wcs.isEmpty() && wcs.getFirst().opcode() == io.rdma4j.verbs.WcOpcode.RECV)
            {
                return wcs;
            }
        }
        return null;
    }

    @Override
    public void close() throws IOException
    {
        forger.close();
        // the devices' objects are left open: shutdown closes the engines regardless
        ((SoftDevice)victimContext.device()).shutdown();
        ((SoftDevice)pingerContext.device()).shutdown();
    }
}
