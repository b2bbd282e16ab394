package io.rdma4j.rdmacore;

import io.rdma4j.rdmacore.abi.CLayout;
import io.rdma4j.rdmacore.abi.IbvQpInitAttr;
import io.rdma4j.rdmacore.provider.NativeProvider;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.DeviceAttr;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.PortAttr;
import io.rdma4j.verbs.PortState;
import io.rdma4j.verbs.PostException;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.Verbs;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The control path on the first native device (rxe0 in the lab): queries, PD, MR, CQ, the QP state machine,
 * and errors carrying the kernel's errno. Skipped, with the reason, where there is no device.
 */
class NativeVerbsTest
{
    private NativeDevice device;
    private NativeContext context;
    private Arena arena;

    @BeforeEach
    void open()
    {
        device = Rxe.device();
        context = device.open();
        arena = Arena.ofShared();
    }

    @AfterEach
    void close()
    {
        if (context == null)
        {
            // skipped: no device, nothing was opened
            return;
        }
        arena.close();
        context.close();
    }

    @Test
    void theDeviceIsListedBesideTheSoftOnes()
    {
        assertTrue(Verbs.getDeviceList().stream().anyMatch(d -> d.name().equals(device.name()) &&
            d.provider().equals(NativeProvider.NAME)));
        assertEquals(NativeProvider.NAME, Verbs.providers().getFirst().name(), "auto prefers the provider with devices");
    }

    @Test
    void queriesTheDevicePortAndGidTable()
    {
        final DeviceAttr attr = context.queryDevice();
        assertTrue(attr.maxQp() > 0 && attr.maxCqe() > 0 && attr.maxMr() > 0, attr.toString());
        assertEquals(1, attr.physPortCnt());
        assertEquals(device.guid(), attr.nodeGuid());

        final PortAttr port = context.queryPort(1);
        assertEquals(PortState.ACTIVE, port.state());
        assertEquals("Ethernet", port.linkLayer());
        assertTrue(port.gidTblLen() > 1);

        final Gid gid = context.queryGid(1, Rxe.ipv4GidIndex(context));
        assertTrue(gid.isIpv4Mapped());
    }

    @Test
    void aMissingPortIsTheKernelsEinval()
    {
        final RdmaException ex = assertThrows(RdmaException.class, () -> context.queryPort(2));
        assertEquals(Errno.EINVAL, ex.errno());
        assertTrue(ex.getMessage().contains("port 2"), ex.getMessage());
    }

    @Test
    void registersTheCallersSegmentWithoutCopying()
    {
        final NativePd pd = context.allocPd();
        final MemorySegment buffer = arena.allocate(4096, 64);
        final MemoryRegion mr = pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ));

        assertEquals(buffer.address(), mr.address());
        assertEquals(4096, mr.length());
        assertNotEquals(0, mr.lkey());
        assertEquals(EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ), mr.access());

        final RdmaException busy = assertThrows(RdmaException.class, pd::close);
        assertEquals(Errno.EBUSY, busy.errno());
        mr.close();
        pd.close();
    }

    @Test
    void aHeapSegmentIsRefused()
    {
        final NativePd pd = context.allocPd();
        final RdmaException ex = assertThrows(RdmaException.class,
            () -> pd.regMr(MemorySegment.ofArray(new byte[64]), Set.of(AccessFlag.LOCAL_WRITE)));
        assertEquals(Errno.EINVAL, ex.errno());
        pd.close();
    }

    @Test
    void remoteWriteWithoutLocalWriteIsTheKernelsEinval()
    {
        final NativePd pd = context.allocPd();
        final RdmaException ex = assertThrows(RdmaException.class,
            () -> pd.regMr(arena.allocate(64), Set.of(AccessFlag.REMOTE_WRITE)));
        assertEquals(Errno.EINVAL, ex.errno());
        assertTrue(ex.getMessage().contains("ibv_reg_mr"), ex.getMessage());
        pd.close();
    }

    @Test
    void aCqTooLargeForTheDeviceIsEinval()
    {
        final int maxCqe = context.queryDevice().maxCqe();
        final RdmaException ex = assertThrows(RdmaException.class, () -> context.createCq(maxCqe + 1, null, 0));
        assertEquals(Errno.EINVAL, ex.errno());
    }

    @Test
    void aCqHasAtLeastTheEntriesAskedFor()
    {
        final NativeCq cq = context.createCq(100, null, 0);
        assertTrue(cq.capacity() >= 100, "capacity " + cq.capacity());
        cq.close();
        assertEquals(Errno.EINVAL, assertThrows(RdmaException.class, () -> cq.poll(new io.rdma4j.verbs.WorkCompletion[1])).errno());
    }

    @Test
    void theQpStateMachineFollowsTheKernel()
    {
        final NativePd pd = context.allocPd();
        final NativeCq cq = context.createCq(16, null, 0);
        final NativeQp qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(8, 8)));
        assertEquals(QpState.RESET, qp.state());
        assertTrue(qp.qpNum() > 1);
        assertTrue(qp.cap().maxSendWr() >= 8 && qp.cap().maxRecvWr() >= 8, qp.cap().toString());

        // RESET to RTR skips INIT: the kernel refuses the transition
        final RdmaException skip = assertThrows(RdmaException.class, () -> qp.modify(new QpAttr().state(QpState.RTR)));
        assertEquals(Errno.EINVAL, skip.errno());
        assertTrue(skip.getMessage().contains("ibv_modify_qp") && skip.getMessage().contains("RTR"), skip.getMessage());

        Rxe.udToRts(qp, 0x11111111);
        assertEquals(QpState.RTS, qp.state());
        final QpAttr queried = qp.query();
        assertEquals(QpState.RTS, queried.state());
        assertEquals(0x11111111, queried.qkey());
        assertEquals(1, queried.portNum());

        qp.modify(new QpAttr().state(QpState.ERR));
        assertEquals(QpState.ERR, qp.query().state());
        qp.modify(new QpAttr().state(QpState.RESET));
        assertEquals(QpState.RESET, qp.state());

        qp.close();
        cq.close();
        pd.close();
    }

    @Test
    void aChainLongerThanTheQueueIsEnomemAtTheFirstRequestThatDoesNotFit()
    {
        final NativePd pd = context.allocPd();
        final NativeCq cq = context.createCq(64, null, 0);
        final NativeQp qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(4, 4)));
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(1));
        final int room = qp.cap().maxRecvWr();
        final RecvWr[] chain = new RecvWr[room + 1];
        for (int i = chain.length - 1; i >= 0; i--)
        {
            chain[i] = new RecvWr().wrId(i).next(i + 1 < chain.length ? chain[i + 1] : null);
        }
        final PostException ex = assertThrows(PostException.class, () -> qp.postRecv(chain[0]));
        assertEquals(Errno.ENOMEM, ex.errno());
        assertEquals(room, ex.badIndex());
        qp.close();
        cq.close();
        pd.close();
    }

    @Test
    void sendingFromResetIsRefusedWithTheProvidersErrno()
    {
        final NativePd pd = context.allocPd();
        final NativeCq cq = context.createCq(16, null, 0);
        final NativeQp qp = pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)));
        final PostException ex = assertThrows(PostException.class, () -> qp.postSend(new SendWr().wrId(1)));
        assertEquals(0, ex.badIndex());
        assertTrue(ex.getMessage().contains("post_send") && ex.getMessage().contains("RESET"), ex.getMessage());
        qp.close();
        cq.close();
        pd.close();
    }

    @Test
    void aUdSendWithoutAnAddressHandleIsEinval()
    {
        final NativePd pd = context.allocPd();
        final NativeCq cq = context.createCq(16, null, 0);
        final NativeQp qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(4, 4)));
        Rxe.udToRts(qp, 1);
        final PostException ex = assertThrows(PostException.class, () -> qp.postSend(new SendWr().wrId(1)));
        assertEquals(Errno.EINVAL, ex.errno());
        assertTrue(ex.getMessage().contains("address handle"), ex.getMessage());
        qp.close();
        cq.close();
        pd.close();
    }

    @Test
    void multicastOnAnRcQpIsEinval()
    {
        final NativePd pd = context.allocPd();
        final NativeCq cq = context.createCq(16, null, 0);
        final NativeQp qp = pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)));
        assertEquals(Errno.EINVAL, assertThrows(RdmaException.class,
            () -> qp.attachMulticast(Gid.parse("239.1.2.3"), 0)).errno());
        qp.close();
        cq.close();
        pd.close();
    }

    @Test
    void attachingANonMulticastGidIsTheKernelsEinval()
    {
        final NativePd pd = context.allocPd();
        final NativeCq cq = context.createCq(16, null, 0);
        final NativeQp qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(4, 4)));
        final RdmaException ex = assertThrows(RdmaException.class,
            () -> qp.attachMulticast(Gid.parse("10.77.0.200"), 0));
        assertEquals(Errno.EINVAL, ex.errno());
        assertTrue(ex.getMessage().contains("ibv_attach_mcast"), ex.getMessage());
        qp.close();
        cq.close();
        pd.close();
    }

    @Test
    void closingAContextWithChildrenIsEbusy()
    {
        final NativePd pd = context.allocPd();
        assertEquals(Errno.EBUSY, assertThrows(RdmaException.class, context::close).errno());
        pd.close();
    }

    @Test
    void aQpThatNativeCodeCreatedIsPostedToThroughTheWrapper()
    {
        final NativePd pd = context.allocPd();
        final NativeCq cq = context.createCq(16, null, 0);
        final MemoryRegion mr = pd.regMr(arena.allocate(4096, 64), EnumSet.of(AccessFlag.LOCAL_WRITE));
        final MemorySegment raw;
        try (Arena local = Arena.ofConfined())
        {
            // what librdmacm's rdma_create_qp does, by hand
            final MemorySegment init = local.allocate(IbvQpInitAttr.LAYOUT);
            init.set(ValueLayout.ADDRESS, CLayout.offset(IbvQpInitAttr.LAYOUT, "send_cq"), cq.address());
            init.set(ValueLayout.ADDRESS, CLayout.offset(IbvQpInitAttr.LAYOUT, "recv_cq"), cq.address());
            init.set(ValueLayout.JAVA_INT, CLayout.offset(IbvQpInitAttr.LAYOUT, "cap", "max_send_wr"), 4);
            init.set(ValueLayout.JAVA_INT, CLayout.offset(IbvQpInitAttr.LAYOUT, "cap", "max_recv_wr"), 4);
            init.set(ValueLayout.JAVA_INT, CLayout.offset(IbvQpInitAttr.LAYOUT, "cap", "max_send_sge"), 1);
            init.set(ValueLayout.JAVA_INT, CLayout.offset(IbvQpInitAttr.LAYOUT, "cap", "max_recv_sge"), 1);
            init.set(ValueLayout.JAVA_INT, CLayout.offset(IbvQpInitAttr.LAYOUT, "qp_type"), QpType.UD.value());
            raw = Ibverbs.pointer("ibv_create_qp in the test", "ibv_create_qp", pd.address(), init);
        }
        final int[] destroyed = new int[1];
        final NativeQp qp = NativeQp.wrap(pd, raw, QpInitAttr.of(QpType.UD, cq, QpCap.of(4, 4)), q ->
        {
            destroyed[0]++;
            return Ibverbs.errno("ibv_destroy_qp", q);
        });
        Rxe.udToRts(qp, 0x55555555);
        final int gidIndex = Rxe.ipv4GidIndex(context);
        final NativeAh ah = pd.createAh(Rxe.route(context.queryGid(1, gidIndex), gidIndex));
        qp.postRecv(new RecvWr().wrId(1).sge(mr, 0, 1024));
        qp.postSend(new SendWr().wrId(2).sendFlags(SendFlags.SIGNALED).sge(mr, 2048, 8).ud(ah, qp.qpNum(), 0x55555555));
        assertEquals(WcStatus.SUCCESS, Rxe.pollOne(cq, new WorkCompletion()).status());
        assertEquals(WcStatus.SUCCESS, Rxe.pollOne(cq, new WorkCompletion()).status());

        ah.close();
        qp.close();
        assertEquals(1, destroyed[0], "closing the wrapper destroys the QP the way it was given");
        mr.close();
        cq.close();
        pd.close();
    }

    @Test
    void anAdoptedContextIsUsableAndStaysOpenAfterTheWrapperCloses()
    {
        final NativeContext adopted = NativeContext.adopt(context.address());
        assertEquals(device.name(), adopted.device().name());
        final NativePd pd = adopted.allocPd();
        pd.close();
        adopted.close();
        // the context itself is still open
        assertEquals(PortState.ACTIVE, context.queryPort(1).state());
    }

    @Test
    void theKernelsCountersAreReported()
    {
        assertTrue(context.counters().keySet().stream().anyMatch(k -> k.startsWith("port1.")),
            context.counters().toString());
    }
}
