package io.rdma4j.verbs;

/**
 * An address vector ({@code struct ibv_ah_attr}). On RoCE every address is global: the GRH
 * carries the destination GID; the LID is unused (0).
 *
 * @param grh         the global route, or null when not global.
 * @param dlid        destination LID (0 on RoCE).
 * @param sl          service level.
 * @param srcPathBits source path bits.
 * @param staticRate  static rate.
 * @param portNum     local port, from 1.
 */
public record AhAttr(GlobalRoute grh, int dlid, int sl, int srcPathBits, int staticRate, int portNum)
{
    /**
     * @param dgid     destination GID: an IPv6 address as is, an IPv4 one mapped ({@code ::ffff:a.b.c.d}),
     *                 of the local GID's family on a software device.
     * @param hopLimit IP TTL (IPv6 hop limit).
     * @return a global address vector on port 1, SGID index 0.
     */
    public static AhAttr global(final Gid dgid, final int hopLimit)
    {
        return new AhAttr(new GlobalRoute(dgid, 0, 0, hopLimit, 0), 0, 0, 0, 0, 1);
    }

    /**
     * @return true if a GRH is present.
     */
    public boolean isGlobal()
    {
        return grh != null;
    }
}
