package io.rdma4j.soft.verbs;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

/**
 * Every limit of a software device in one place, as rxe keeps them in {@code rxe_param.h}. The
 * defaults are rxe's; each can be changed for tests and for small devices.
 *
 * @param maxQp                 queue pairs.
 * @param maxQpWr               work requests per queue.
 * @param maxSge                SGEs per send or receive request.
 * @param maxSgeRd              SGEs per RDMA READ.
 * @param maxInlineData         bytes of inline data per send.
 * @param maxCq                 completion queues.
 * @param maxCqe                entries per CQ.
 * @param maxMr                 memory regions.
 * @param maxPd                 protection domains.
 * @param maxAh                 address handles.
 * @param maxSrq                shared receive queues.
 * @param maxSrqWr              work requests per SRQ.
 * @param maxSrqSge             SGEs per SRQ request.
 * @param maxQpRdAtom           incoming RDMA READs and atomics in flight per QP.
 * @param maxQpInitRdAtom       outgoing RDMA READs and atomics in flight per QP.
 * @param maxMcastGrp           multicast groups; 0 means no multicast.
 * @param maxMcastQpAttach      QPs per multicast group.
 * @param maxTotalMcastQpAttach QP attachments in all.
 * @param maxMsgSize            largest message.
 * @param ethernetMtu           the link's MTU, from which the active IB MTU follows.
 */
public record DeviceLimits(
    int maxQp, int maxQpWr, int maxSge, int maxSgeRd, int maxInlineData, int maxCq, int maxCqe, int maxMr, int maxPd,
    int maxAh, int maxSrq, int maxSrqWr, int maxSrqSge, int maxQpRdAtom, int maxQpInitRdAtom, int maxMcastGrp,
    int maxMcastQpAttach, int maxTotalMcastQpAttach, long maxMsgSize, int ethernetMtu)
{
    /** rxe's defaults (rxe_param.h, the values ibv_devinfo -v shows on rxe0), Ethernet MTU 1500. */
    public static final DeviceLimits RXE = new DeviceLimits(
        0x10000, 0x4000, 32, 32, 400, 16384, 32767, 256 * 1024, 0x7FFC, 32767, 960, 0x4000, 27, 128, 128,
        8192, 56, 0x70000, 0x80000000L, 1500);

    /**
     * Checks the limits are coherent, as the seed requires of the multicast ones.
     */
    public DeviceLimits
    {
        if (maxMcastGrp < 0 || maxMcastQpAttach < 0 || maxTotalMcastQpAttach < 0)
        {
            throw new RdmaException(Errno.EINVAL, "multicast limits must not be negative");
        }
        if ((long)maxTotalMcastQpAttach > (long)maxMcastGrp * maxMcastQpAttach)
        {
            throw new RdmaException(Errno.EINVAL, "max_total_mcast_qp_attach " + maxTotalMcastQpAttach +
                " exceeds max_mcast_grp × max_mcast_qp_attach = " + ((long)maxMcastGrp * maxMcastQpAttach));
        }
    }

    /**
     * @param groups     max_mcast_grp.
     * @param perGroup   max_mcast_qp_attach.
     * @param total      max_total_mcast_qp_attach.
     * @return a copy with these multicast limits.
     */
    public DeviceLimits withMulticast(final int groups, final int perGroup, final int total)
    {
        return new DeviceLimits(maxQp, maxQpWr, maxSge, maxSgeRd, maxInlineData, maxCq, maxCqe, maxMr, maxPd, maxAh,
            maxSrq, maxSrqWr, maxSrqSge, maxQpRdAtom, maxQpInitRdAtom, groups, perGroup, total, maxMsgSize,
            ethernetMtu);
    }

    /**
     * @param mtu the link's Ethernet MTU.
     * @return a copy with that MTU.
     */
    public DeviceLimits withEthernetMtu(final int mtu)
    {
        return new DeviceLimits(maxQp, maxQpWr, maxSge, maxSgeRd, maxInlineData, maxCq, maxCqe, maxMr, maxPd, maxAh,
            maxSrq, maxSrqWr, maxSrqSge, maxQpRdAtom, maxQpInitRdAtom, maxMcastGrp, maxMcastQpAttach,
            maxTotalMcastQpAttach, maxMsgSize, mtu);
    }

    /**
     * @param qpWr work requests per queue.
     * @param cqe  entries per CQ.
     * @return a copy with these queue limits.
     */
    public DeviceLimits withQueues(final int qpWr, final int cqe)
    {
        return new DeviceLimits(maxQp, qpWr, maxSge, maxSgeRd, maxInlineData, maxCq, cqe, maxMr, maxPd, maxAh,
            maxSrq, maxSrqWr, maxSrqSge, maxQpRdAtom, maxQpInitRdAtom, maxMcastGrp, maxMcastQpAttach,
            maxTotalMcastQpAttach, maxMsgSize, ethernetMtu);
    }
}
