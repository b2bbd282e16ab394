package io.rdma4j.rdmacore;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.GlobalRoute;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WorkCompletion;

import java.util.List;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the device tests share: the first native device (or the test is skipped with the provider's reason,
 * never passed), its RoCEv2 IPv4 GID, and the QP transitions every test makes.
 */
final class Rxe
{
    /** How long a test waits for a completion before failing: a liveness bound, far above any real latency. */
    static final long COMPLETION_WAIT_NANOS = 10_000_000_000L;

    private Rxe()
    {
    }

    /**
     * @return the first native device; the calling test is skipped, with the reason, when there is none.
     */
    static NativeDevice device()
    {
        final List<Device> devices = NativeDevices.list();
        assumeTrue(!devices.isEmpty(), () -> "no native RDMA device: " + NativeDevices.unavailableReason());
        return (NativeDevice)devices.getFirst();
    }

    /**
     * @param context an open context.
     * @return the index of port 1's first IPv4-mapped GID (RoCEv2 over the interface's IPv4 address).
     */
    static int ipv4GidIndex(final Context context)
    {
        final int length = context.queryPort(1).gidTblLen();
        for (int index = 0; index < length; index++)
        {
            try
            {
                final Gid gid = context.queryGid(1, index);
                if (gid.isIpv4Mapped() && !gid.isZero())
                {
                    return index;
                }
            }
            catch (final RdmaException ex)
            {
                // an empty slot of the GID table
            }
        }
        return fail("port 1 of " + context.device().name() + " has no IPv4 GID: give its netdev an IPv4 address");
    }

    static AhAttr route(final Gid dgid, final int sgidIndex)
    {
        return new AhAttr(new GlobalRoute(dgid, 0, sgidIndex, 1, 0), 0, 0, 0, 0, 1);
    }

    static void udToRts(final QueuePair qp, final int qkey)
    {
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(qkey));
        qp.modify(new QpAttr().state(QpState.RTR));
        qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
    }

    static void rcToRts(final QueuePair qp, final int remoteQpn, final AhAttr path)
    {
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(AccessFlag.LOCAL_WRITE,
            AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC));
        qp.modify(new QpAttr().state(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(remoteQpn).rqPsn(0)
            .maxDestRdAtomic(1).minRnrTimer(12).ahAttr(path));
        qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1));
    }

    static void ucToRts(final QueuePair qp, final int remoteQpn, final AhAttr path)
    {
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(AccessFlag.LOCAL_WRITE,
            AccessFlag.REMOTE_WRITE));
        qp.modify(new QpAttr().state(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(remoteQpn).rqPsn(0).ahAttr(path));
        qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
    }

    /**
     * Busy-poll until one completion arrives.
     *
     * @param cq the CQ.
     * @param wc where to put it.
     * @return {@code wc}.
     */
    static WorkCompletion pollOne(final CompletionQueue cq, final WorkCompletion wc)
    {
        final WorkCompletion[] one = { wc };
        final long deadline = System.nanoTime() + COMPLETION_WAIT_NANOS;
        while (cq.poll(one, 1) == 0)
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("no completion on the CQ within " + COMPLETION_WAIT_NANOS / 1_000_000_000L + " s");
            }
            Thread.onSpinWait();
        }
        return wc;
    }
}
