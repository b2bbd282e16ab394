package io.rdma4j.verbs;

/**
 * The global route of an address vector ({@code struct ibv_global_route}): on RoCEv2 the IP
 * header's fields.
 *
 * @param dgid         destination GID: the peer's IP address or the group's MGID.
 * @param flowLabel    20-bit IPv6 flow label.
 * @param sgidIndex    which local GID to send from.
 * @param hopLimit     IP TTL / hop limit.
 * @param trafficClass IP TOS / traffic class.
 */
public record GlobalRoute(Gid dgid, int flowLabel, int sgidIndex, int hopLimit, int trafficClass)
{
}
