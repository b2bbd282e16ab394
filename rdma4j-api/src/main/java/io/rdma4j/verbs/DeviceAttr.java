package io.rdma4j.verbs;

/**
 * What a device can do ({@code struct ibv_device_attr}), as {@code ibv_devinfo -v} prints it.
 *
 * @param fwVer                 firmware version text.
 * @param nodeGuid              node GUID.
 * @param sysImageGuid          system image GUID.
 * @param maxMrSize             largest memory region.
 * @param pageSizeCap           supported page sizes.
 * @param vendorId              IEEE vendor ID.
 * @param vendorPartId          vendor part ID.
 * @param hwVer                 hardware version.
 * @param maxQp                 queue pairs.
 * @param maxQpWr               outstanding work requests per queue.
 * @param deviceCapFlags        {@code IBV_DEVICE_*} capability bits.
 * @param maxSge                scatter/gather elements per send or receive request.
 * @param maxSgeRd              scatter/gather elements per RDMA READ.
 * @param maxCq                 completion queues.
 * @param maxCqe                entries per completion queue.
 * @param maxMr                 memory regions.
 * @param maxPd                 protection domains.
 * @param maxQpRdAtom           outstanding RDMA READs and atomics a QP can be the target of.
 * @param maxEeRdAtom           EE contexts' equivalent (0).
 * @param maxResRdAtom          responder resources in all.
 * @param maxQpInitRdAtom       outstanding RDMA READs and atomics a QP can initiate.
 * @param maxEeInitRdAtom       EE contexts' equivalent (0).
 * @param atomicCap             0 none, 1 atomic within this HCA, 2 global.
 * @param maxEe                 EE contexts (0).
 * @param maxRdd                RD domains (0).
 * @param maxMw                 memory windows.
 * @param maxRawIpv6Qp          raw IPv6 QPs (0).
 * @param maxRawEthyQp          raw Ethertype QPs (0).
 * @param maxMcastGrp           multicast groups; 0 means no multicast support.
 * @param maxMcastQpAttach      QPs attached to one multicast group.
 * @param maxTotalMcastQpAttach QP attachments to multicast groups in all.
 * @param maxAh                 address handles.
 * @param maxFmr                fast memory regions (0).
 * @param maxMapPerFmr          maps per FMR (0).
 * @param maxSrq                shared receive queues.
 * @param maxSrqWr              work requests per SRQ.
 * @param maxSrqSge             scatter/gather elements per SRQ request.
 * @param maxPkeys              P_Key table size.
 * @param localCaAckDelay       local CA ACK delay exponent.
 * @param physPortCnt           ports.
 * @param maxInlineData         bytes a send may carry inline.
 */
public record DeviceAttr(
    String fwVer, long nodeGuid, long sysImageGuid, long maxMrSize, long pageSizeCap, int vendorId, int vendorPartId,
    int hwVer, int maxQp, int maxQpWr, long deviceCapFlags, int maxSge, int maxSgeRd, int maxCq, int maxCqe, int maxMr,
    int maxPd, int maxQpRdAtom, int maxEeRdAtom, int maxResRdAtom, int maxQpInitRdAtom, int maxEeInitRdAtom,
    int atomicCap, int maxEe, int maxRdd, int maxMw, int maxRawIpv6Qp, int maxRawEthyQp, int maxMcastGrp,
    int maxMcastQpAttach, int maxTotalMcastQpAttach, int maxAh, int maxFmr, int maxMapPerFmr, int maxSrq,
    int maxSrqWr, int maxSrqSge, int maxPkeys, int localCaAckDelay, int physPortCnt, int maxInlineData)
{
}
