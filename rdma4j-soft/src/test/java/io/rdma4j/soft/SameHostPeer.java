package io.rdma4j.soft;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;

/**
 * The other process of {@link SameHostProcessTest}: a device with the same-host path, a UD QP and an RC QP
 * that echo every message back to the test's process. Protocol on stdin/stdout, one line each:
 * {@code READY <ud qpn> <rc qpn>}, then {@code PEER <address> <ud qpn> <rc qpn>} in,
 * {@code CONNECTED} out; at the end of stdin it prints {@code COUNTERS} and its counters, and exits.
 */
public final class SameHostPeer
{
    private SameHostPeer()
    {
    }

    /**
     * @param args the device's address.
     * @throws Exception on any failure: the test sees the process end.
     */
    public static void main(final String[] args) throws Exception
    {
        final InetAddress address = InetAddress.getByName(args[0]);
        final Context context = SoftDevice.builder("peer", address).sameHost(true).build().open();
        final UdEndpoint ud = new UdEndpoint(context);
        final RcEndpoint rc = new RcEndpoint(context, QpType.RC, 1 << 16, 16);
        System.out.println("READY " + ud.qp.qpNum() + " " + rc.qp.qpNum());
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        final String[] peer = in.readLine().split(" ");
        final Gid peerGid = Gid.fromInet(InetAddress.getByName(peer[1]));
        final int peerUdQpn = Integer.parseInt(peer[2]);
        final int peerRcQpn = Integer.parseInt(peer[3]);
        SameHostProcessTest.connect(rc, peerGid, peerRcQpn);
        ud.postRecvs(UdEndpoint.SLOTS);
        for (int i = 0; i < 16; i++)
        {
            rc.qp.postRecv(new RecvWr().wrId(i).sge(rc.mr, (long)i * 1024, 1024));
        }
        final AddressHandle toPeer = ud.ahTo(peerGid);
        final Thread echo = Thread.ofPlatform().daemon().start(() -> echo(ud, rc, toPeer, peerUdQpn));
        System.out.println("CONNECTED");
        while (in.readLine() != null)
        {
            // the test closes stdin when it is done
        }
        final Counters counters = rc.engine().counters();
        System.out.println("COUNTERS " + counters.get(SoftCounter.SHM_SENT_PKTS) + " " +
            counters.get(SoftCounter.SHM_RCVD_PKTS) + " " + counters.get(SoftCounter.UDP_SENT_PKTS) + " " +
            counters.get(SoftCounter.UDP_RCVD_PKTS));
        System.out.flush();
        echo.interrupt();
        System.exit(0);
    }

    private static void echo(final UdEndpoint ud, final RcEndpoint rc, final AddressHandle toPeer, final int peerUdQpn)
    {
        final WorkCompletion[] wcs = WorkCompletion.array(16);
        final SendWr send = new SendWr();
        final RecvWr recv = new RecvWr();
        while (!Thread.currentThread().isInterrupted())
        {
            final int udCount = ud.cq.poll(wcs, 16);
            for (int i = 0; i < udCount; i++)
            {
                if (wcs[i].opcode() == WcOpcode.RECV)
                {
                    final String text = ud.text(wcs[i]);
                    ud.send(toPeer, peerUdQpn, UdEndpoint.QKEY, text, 1);
                    ud.postRecvs(1);
                }
            }
            final int rcCount = rc.recvCq.poll(wcs, 16);
            for (int i = 0; i < rcCount; i++)
            {
                final int slot = (int)wcs[i].wrId();
                rc.qp.postSend(send.wrId(slot).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sge(rc.mr, (long)slot * 1024, wcs[i].byteLen()));
                rc.qp.postRecv(recv.wrId(slot).sge(rc.mr, (long)slot * 1024, 1024));
            }
            rc.sendCq.poll(wcs, 16);
            if (udCount == 0 && rcCount == 0)
            {
                Thread.onSpinWait();
            }
        }
    }
}
