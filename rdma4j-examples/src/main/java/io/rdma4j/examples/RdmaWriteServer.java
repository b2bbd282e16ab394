package io.rdma4j.examples;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

/**
 * Expose a buffer for RDMA WRITE and READ: register it with remote access, and hand its address,
 * rkey and length to the client in the accept's private data. The client writes into it and reads it
 * back without this side doing anything; its final SEND carries the CRC-32 it wrote as immediate data,
 * and this side checks the buffer against it.
 * <p>
 * Usage: {@code RdmaWriteServer ADDRESS [SIZE]}; prints the port it listens on.
 */
public final class RdmaWriteServer
{
    public static void main(final String[] args) throws Exception
    {
        final InetAddress address = InetAddress.getByName(args[0]);
        final int size = args.length > 1 ? Integer.parseInt(args[1]) : 1 << 20;

        try (EventChannel channel = RdmaCm.createEventChannel(); Arena arena = Arena.ofShared())
        {
            final CmId listener = channel.createId(null, PortSpace.TCP);
            listener.bindAddr(new InetSocketAddress(address, 0));
            listener.listen(1);
            System.out.printf("listening on port %d.%n", listener.localAddress().getPort());

            final CmEvent request = channel.expect(CmEventType.CONNECT_REQUEST, -1, TimeUnit.SECONDS);
            final CmId id = request.id();
            request.ack();
            final ProtectionDomain pd = id.verbs().allocPd();
            final CompletionQueue cq = id.verbs().createCq(4, null, 0);
            id.createQp(pd, QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)));
            final MemorySegment buffer = arena.allocate(size);
            final MemoryRegion mr = pd.regMr(buffer,
                EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ));
            // the client's final SEND is zero bytes with immediate data: a receive with no buffer takes it
            id.qp().postRecv(new RecvWr().wrId(1).sge(mr, 0, 0));

            // where the client may write: 8-byte address, 4-byte rkey, 4-byte length, network order
            final byte[] key = ByteBuffer.allocate(16).putLong(mr.address()).putInt(mr.rkey()).putInt(size).array();
            id.accept(ConnParam.withPrivateData(key));
            channel.expect(CmEventType.ESTABLISHED, 30, TimeUnit.SECONDS).ack();

            final WorkCompletion[] wcs = WorkCompletion.array(1);
            while (cq.poll(wcs) == 0)
            {
                Thread.onSpinWait();
            }
            final CRC32 crc = new CRC32();
            crc.update(buffer.asByteBuffer());
            System.out.printf("client wrote %d bytes, CRC-32 %08x; the client says %08x%n", size, crc.getValue(),
                wcs[0].immData());

            channel.expect(CmEventType.DISCONNECTED, 30, TimeUnit.SECONDS).ack();
            id.destroyQp();
            mr.close();
            cq.close();
            pd.close();
            id.close();
            listener.close();
        }
    }
}
