package io.rdma4j.soft;

import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.verbs.DeviceLimits;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.PostException;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.util.EnumSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * API misuse gives the errno the man pages name and a sentence naming what was wrong.
 */
@Timeout(30)
class VerbsMisuseTest
{
    private static void assertErrno(final Errno errno, final String phrase, final Executable call)
    {
        final RdmaException ex = assertThrows(RdmaException.class, call);
        assertEquals(errno, ex.errno(), ex.getMessage());
        assertTrue(ex.getMessage().contains(phrase), "'" + ex.getMessage() + "' should say '" + phrase + "'");
    }

    @Test
    void shouldSayWhyADeviceCannotOpenWithTheErrnoOfTheCause() throws Exception
    {
        // an address this host lacks (documentation's TEST-NET-1: nothing is sent, the bind fails) is not one in use
        final SoftDevice foreign = SoftDevice.builder("misuse_foreign", InetAddress.getByName("192.0.2.1")).build();
        assertErrno(Errno.EADDRNOTAVAIL, "is not an address of this host", foreign::open);
        final InetAddress taken = TestNet.hostAddress(7);
        try (DatagramChannel other = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            other.bind(new InetSocketAddress(taken, Link.ROCE_V2_PORT));
            final SoftDevice clash = SoftDevice.builder("misuse_clash", taken).build();
            assertErrno(Errno.EADDRINUSE, "is already in use", clash::open);
        }
    }

    @Test
    void shouldRefuseQpCapabilitiesAboveTheDeviceLimitsNamingTheLimit()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context context = fabric.open(DeviceLimits.RXE.withQueues(128, 512));
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(16, null, 0);
            assertErrno(Errno.EINVAL, "max_send_wr 129 is outside 1..max_qp_wr 128",
                () -> pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(129, 1))));
            assertErrno(Errno.EINVAL, "max_recv_wr 0",
                () -> pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(1, 0))));
            assertErrno(Errno.EINVAL, "max_send_sge 33 exceeds max_sge 32",
                () -> pd.createQp(QpInitAttr.of(QpType.UD, cq, new QpCap(1, 1, 33, 1, 0))));
            assertErrno(Errno.EINVAL, "max_inline_data 401 exceeds 400",
                () -> pd.createQp(QpInitAttr.of(QpType.UD, cq, new QpCap(1, 1, 1, 1, 401))));
            assertErrno(Errno.EINVAL, "cqe 513 is outside 1..max_cqe 512", () -> context.createCq(513, null, 0));
        }
    }

    @Test
    void shouldRefuseIllegalTransitionsAndMissingOrForeignAttributes()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context context = fabric.open();
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(16, null, 0);
            final QueuePair rc = pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)));
            assertErrno(Errno.EINVAL, "cannot go from RESET to RTS", () -> rc.modify(new QpAttr().state(QpState.RTS)));
            assertErrno(Errno.EINVAL, "requires attribute ACCESS_FLAGS",
                () -> rc.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1)));
            assertErrno(Errno.EINVAL, "QKEY is not allowed",
                () -> rc.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(0).qkey(1)));
            rc.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(AccessFlag.REMOTE_WRITE));
            assertEquals(QpState.INIT, rc.state());
            assertErrno(Errno.EINVAL, "requires attribute AV",
                () -> rc.modify(new QpAttr().state(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(1).rqPsn(0)));
            assertErrno(Errno.EINVAL, "port_num 2 does not exist", () -> rc.modify(new QpAttr().portNum(2)));
            assertErrno(Errno.EINVAL, "is in INIT, not in cur_qp_state RTS",
                () -> rc.modify(new QpAttr().curState(QpState.RTS).state(QpState.INIT)));
            rc.modify(new QpAttr().state(QpState.ERR));
            assertErrno(Errno.EINVAL, "cannot go from ERR to RTS", () -> rc.modify(new QpAttr().state(QpState.RTS)));
            rc.modify(new QpAttr().state(QpState.RESET));
            assertEquals(QpState.RESET, rc.state());
        }
    }

    @Test
    void shouldRefusePostsInTheWrongStateOrShape()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final UdEndpoint ud = new UdEndpoint(fabric.open());
            final QueuePair fresh = ud.pd.createQp(QpInitAttr.of(QpType.UD, ud.cq, QpCap.of(4, 4)));
            assertErrno(Errno.EINVAL, "is in RESET", () -> fresh.postRecv(new RecvWr().sge(ud.mr, 0, 64)));
            assertErrno(Errno.EINVAL, "is in RESET", () -> fresh.postSend(new SendWr().sge(ud.mr, 0, 64)));
            assertErrno(Errno.EINVAL, "RDMA_WRITE cannot be posted on a UD QP",
                () -> ud.qp.postSend(new SendWr().opcode(WrOpcode.RDMA_WRITE).sge(ud.mr, 0, 8)));
            assertErrno(Errno.EINVAL, "needs a valid address handle",
                () -> ud.qp.postSend(new SendWr().opcode(WrOpcode.SEND).sge(ud.mr, 0, 8)));
            final SendWr twoSges = new SendWr(2).opcode(WrOpcode.SEND).ud(ud.ahTo(ud.gid()), 1, 1);
            twoSges.sgList().numSge(2);
            final PostException tooMany = assertThrows(PostException.class, () -> ud.qp.postSend(twoSges));
            assertEquals(Errno.EINVAL, tooMany.errno());
            assertEquals(0, tooMany.badIndex());
            final RecvWr chain = new RecvWr().sge(ud.mr, 0, 64);
            RecvWr last = chain;
            for (int i = 0; i < UdEndpoint.SLOTS + 1; i++)
            {
                final RecvWr next = new RecvWr().sge(ud.mr, 0, 64);
                last.next(next);
                last = next;
            }
            final PostException full = assertThrows(PostException.class, () -> ud.qp.postRecv(chain));
            assertEquals(Errno.ENOMEM, full.errno());
            assertEquals(UdEndpoint.SLOTS, full.badIndex());
        }
    }

    @Test
    void shouldRefuseBadRegistrations()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final ProtectionDomain pd = fabric.open().allocPd();
            assertErrno(Errno.EINVAL, "need native memory",
                () -> pd.regMr(MemorySegment.ofArray(new byte[64]), EnumSet.of(AccessFlag.LOCAL_WRITE)));
            final MemorySegment native64 = Arena.ofAuto().allocate(64);
            assertErrno(Errno.EINVAL, "REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE",
                () -> pd.regMr(native64, EnumSet.of(AccessFlag.REMOTE_WRITE)));
            final MemoryRegion mr = pd.regMr(native64, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ));
            assertEquals(mr.lkey(), mr.rkey());
            assertEquals(native64.address(), mr.address());
        }
    }

    @Test
    void shouldRefuseDestroyingParentsWithChildrenAndDestroyingTwice()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context context = fabric.open();
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(16, null, 0);
            final QueuePair qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(4, 4)));
            final MemoryRegion mr = pd.regMr(Arena.ofAuto().allocate(64), EnumSet.of(AccessFlag.LOCAL_WRITE));
            assertErrno(Errno.EBUSY, "still has 1 memory region, 1 QP, 0 address handles", pd::close);
            assertEquals("EBUSY: the completion queue is still used by 1 QP",
                assertThrows(RdmaException.class, cq::close).getMessage());
            assertErrno(Errno.EBUSY, "still has", context::close);
            qp.close();
            assertErrno(Errno.EINVAL, "is already destroyed", qp::close);
            assertErrno(Errno.EINVAL, "is destroyed", () -> qp.postRecv(new RecvWr().sge(mr, 0, 8)));
            mr.close();
            assertErrno(Errno.EINVAL, "already deregistered", mr::close);
            pd.close();
            assertErrno(Errno.EINVAL, "already deallocated", pd::close);
            assertErrno(Errno.EINVAL, "is deallocated", () -> pd.createAh(io.rdma4j.verbs.AhAttr.global(context.queryGid(1, 0), 1)));
            cq.close();
            context.close();
        }
    }
}
