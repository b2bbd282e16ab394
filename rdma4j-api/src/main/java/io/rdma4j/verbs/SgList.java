package io.rdma4j.verbs;

/**
 * The scatter/gather list of a work request: a fixed number of reusable {@link Sge} slots of
 * which the first {@link #numSge()} count.
 */
public final class SgList
{
    private final Sge[] sges;
    private int numSge;

    SgList(final int capacity)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("a work request needs room for at least one SGE, not " + capacity);
        }
        sges = new Sge[capacity];
        for (int i = 0; i < capacity; i++)
        {
            sges[i] = new Sge();
        }
    }

    /**
     * @return how many SGEs the list can hold.
     */
    public int capacity()
    {
        return sges.length;
    }

    /**
     * @return how many SGEs are in use.
     */
    public int numSge()
    {
        return numSge;
    }

    /**
     * @param count SGEs in use, 0..capacity.
     */
    public void numSge(final int count)
    {
        if (count < 0 || count > sges.length)
        {
            throw new RdmaException(Errno.EINVAL, "num_sge " + count + " is outside 0.." + sges.length +
                " (the work request was made with room for " + sges.length + ")");
        }
        numSge = count;
    }

    /**
     * @param index slot, 0..capacity-1.
     * @return the slot's SGE.
     */
    public Sge get(final int index)
    {
        return sges[index];
    }

    /**
     * @return the total bytes of the SGEs in use.
     */
    public long totalLength()
    {
        long total = 0;
        for (int i = 0; i < numSge; i++)
        {
            total += sges[i].length();
        }
        return total;
    }
}
