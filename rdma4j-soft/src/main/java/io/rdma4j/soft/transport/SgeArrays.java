package io.rdma4j.soft.transport;

import io.rdma4j.verbs.SgList;
import io.rdma4j.verbs.Sge;

/**
 * A work request's scatter/gather list copied into a WQE's parallel arrays, which the data path reads without
 * touching the application's objects again.
 */
final class SgeArrays
{
    private SgeArrays()
    {
    }

    /**
     * @return the total length of the list's SGEs.
     */
    static long copy(final SgList list, final long[] addr, final int[] length, final int[] lkey)
    {
        final int numSge = list.numSge();
        long total = 0;
        for (int i = 0; i < numSge; i++)
        {
            final Sge sge = list.get(i);
            addr[i] = sge.addr();
            length[i] = sge.length();
            lkey[i] = sge.lkey();
            total += sge.length();
        }
        return total;
    }
}
