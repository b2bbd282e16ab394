package io.rdma4j.tools;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.JoinFlags;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.cm.UdParam;
import io.rdma4j.tools.common.Closing;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A multicast sender built on the API in the test's own JVM, sending what rdma-core's mckey
 * sends: SEND_WITH_IMM carrying the own QPN, of a buffer the sender never writes a header into
 * (rdma-core's is an uninitialised malloc). The test chooses the bytes, so it can stand for
 * whatever that memory held.
 */
final class ApiMulticastSender implements AutoCloseable
{
    private static final long EVENT_WAIT_S = 30;

    private final EventChannel channel;
    private final CmId id;
    private final InetSocketAddress group;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private QueuePair qp;
    private Arena arena;
    private MemorySegment buffer;
    private MemoryRegion mr;
    private AddressHandle ah;
    private UdParam param;

    private ApiMulticastSender(final EventChannel channel, final CmId id, final InetSocketAddress group)
    {
        this.channel = channel;
        this.id = id;
        this.group = group;
    }

    /**
     * Bind to {@code bindAddress}, make a UD QP, and join {@code group} as a send-only member.
     *
     * @param bindAddress this sender's loopback address (its device's GID).
     * @param group       the multicast group.
     * @param size        the message size.
     * @return the joined sender.
     */
    static ApiMulticastSender join(final String bindAddress, final String group, final int size) throws Exception
    {
        final EventChannel channel = RdmaCm.createEventChannel();
        final CmId id = channel.createId(null, PortSpace.UDP);
        final ApiMulticastSender sender =
            new ApiMulticastSender(channel, id, new InetSocketAddress(InetAddress.getByName(group), 0));
        try
        {
            sender.joinAs(new InetSocketAddress(InetAddress.getByName(bindAddress), 0), size);
            return sender;
        }
        catch (final Exception | AssertionError ex)
        {
            sender.close();
            throw ex;
        }
    }

    private void joinAs(final InetSocketAddress source, final int size) throws InterruptedException
    {
        id.bindAddr(source);
        id.resolveAddr(source, group, McKeyCommand.RESOLVE_TIMEOUT_MS);
        expect(CmEventType.ADDR_RESOLVED);
        pd = id.verbs().allocPd();
        cq = id.verbs().createCq(64, null, 0);
        qp = id.createQp(pd, QpInitAttr.of(QpType.UD, cq, QpCap.of(32, 1)));
        arena = Arena.ofShared();
        buffer = arena.allocate(size, 64);
        mr = pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE));
        id.joinMulticast(group, JoinFlags.SENDONLY_FULLMEMBER, this);
        param = expect(CmEventType.MULTICAST_JOIN).udParam();
        ah = pd.createAh(param.ahAttr());
    }

    private CmEvent expect(final CmEventType type) throws InterruptedException
    {
        final CmEvent event = channel.getEvent(EVENT_WAIT_S, TimeUnit.SECONDS);
        if (event == null)
        {
            throw new AssertionError("no CM event within " + EVENT_WAIT_S + " s; wanted " + type);
        }
        event.ack();
        if (event.type() != type)
        {
            throw new AssertionError("CM event " + event.type() + " (status " + event.status() + "), wanted " + type);
        }
        return event;
    }

    /**
     * Send {@code count} messages of the buffer as {@code fill} leaves it, one at a time, each
     * completed before the next.
     *
     * @param count how many.
     * @param fill  writes the buffer before the first send, as rdma-core's sender never does.
     */
    void send(final int count, final Consumer<MemorySegment> fill)
    {
        fill.accept(buffer);
        final SendWr wr = new SendWr().opcode(WrOpcode.SEND_WITH_IMM).immData(qp.qpNum())
            .ud(ah, param.qpNum(), param.qkey()).sendFlags(SendFlags.SIGNALED)
            .sge(mr, 0, (int)buffer.byteSize());
        final WorkCompletion[] wcs = WorkCompletion.array(1);
        for (int i = 0; i < count; i++)
        {
            qp.postSend(wr.wrId(i));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(EVENT_WAIT_S);
            while (cq.poll(wcs) == 0)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new AssertionError("send " + i + " did not complete within " + EVENT_WAIT_S + " s");
                }
                Thread.onSpinWait();
            }
            if (!wcs[0].isSuccess())
            {
                throw new AssertionError("send " + i + " completed with " + wcs[0].status());
            }
        }
    }

    @Override
    public void close()
    {
        final AutoCloseable[] resources = {ah, qp == null ? null : id::destroyQp, cq, mr, pd,
            arena == null ? null : arena::close, id, channel};
        for (final AutoCloseable resource : resources)
        {
            Closing.closeReporting(resource, message -> System.err.println("sender cleanup: " + message));
        }
    }
}
