package io.rdma4j.netty;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.RdmaException;

import java.util.Arrays;
import java.util.EnumSet;

/**
 * One event loop's protection domain on one device, which every QP of the loop's channels on the device is made
 * in, and the regions of the {@link RegisteredChunk}s those channels have sent from: a chunk is registered the
 * first time a channel of the loop sends from it and stays registered until its pool retires it (none of its
 * buffers in use, so no SEND reads it) or the loop's last endpoint on the device is retired, so a region outlives
 * every SEND that uses it. Used on the loop's thread alone.
 */
final class DeviceMemory
{
    private static final System.Logger LOG = System.getLogger(DeviceMemory.class.getName());

    private final ProtectionDomain pd;
    private MemoryRegion[] regions = new MemoryRegion[0];
    /** The chunk of each region, by the chunk's id. */
    private RegisteredChunk[] chunks = new RegisteredChunk[0];
    /** Chunks the device would not register (its limit on regions or pinned memory): sent by copy from then on. */
    private boolean[] refused = new boolean[0];
    private int holds;

    /**
     * @param verbs the device.
     */
    DeviceMemory(final Context verbs)
    {
        this.pd = verbs.allocPd();
    }

    /**
     * @return the protection domain.
     */
    ProtectionDomain pd()
    {
        return pd;
    }

    /** One more endpoint uses it. */
    void hold()
    {
        holds++;
    }

    /**
     * One endpoint less, after its QP and regions are gone.
     *
     * @return true when it was the last, and everything is closed.
     */
    boolean release()
    {
        if (--holds > 0)
        {
            return false;
        }
        for (int id = 0; id < regions.length; id++)
        {
            deregister(id);
        }
        regions = new MemoryRegion[0];
        chunks = new RegisteredChunk[0];
        refused = new boolean[0];
        Teardown.quietly(LOG, System.Logger.Level.WARNING, "closing a protection domain failed", pd::close);
        return true;
    }

    /** Close the regions of the chunks their pools retired, so their memory can go. */
    void dropRetired()
    {
        for (int id = 0; id < regions.length; id++)
        {
            if (regions[id] != null && chunks[id].retired())
            {
                deregister(id);
            }
        }
    }

    private void deregister(final int id)
    {
        final MemoryRegion region = regions[id];
        if (region == null)
        {
            return;
        }
        regions[id] = null;
        Teardown.quietly(LOG, System.Logger.Level.WARNING, "deregistering a chunk failed", region::close);
        chunks[id].deregistered();
        chunks[id] = null;
    }

    /**
     * @param chunk a chunk of registered memory.
     * @return its region in this domain, registered now if it is the first SEND from it; null if the device
     *         refused to register it, now or before.
     */
    MemoryRegion region(final RegisteredChunk chunk)
    {
        final int id = chunk.id();
        if (id >= regions.length)
        {
            final int length = Math.max(id + 1, RegisteredChunk.count());
            regions = Arrays.copyOf(regions, length);
            chunks = Arrays.copyOf(chunks, length);
            refused = Arrays.copyOf(refused, length);
        }
        MemoryRegion region = regions[id];
        if (region == null && !refused[id] && chunk.registering())
        {
            try
            {
                // a SEND only reads it
                region = pd.regMr(chunk.segment(), EnumSet.noneOf(AccessFlag.class));
                regions[id] = region;
                chunks[id] = chunk;
            }
            catch (final RdmaException ex)
            {
                chunk.deregistered();
                refused[id] = true;
                LOG.log(System.Logger.Level.WARNING, "the device refused to register a chunk of " + chunk.size() +
                    " bytes; its buffers go out by copy", ex);
            }
        }
        return region;
    }
}
