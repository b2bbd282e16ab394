package io.rdma4j.soft.cm;

import io.rdma4j.soft.SoftDevice;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.RdmaException;

import java.util.ArrayList;
import java.util.List;

/**
 * What a destroyed id gives back once the channel's lock is let go: the PD it allocated itself and
 * the device contexts it held (its own, a wildcard listener's, those of connection requests never
 * retrieved). Closing the last context of a device stops the device's engine, which takes a while,
 * so none of it happens under the lock.
 * <p>
 * Filled and run by the thread closing the id.
 */
final class CmIdRelease
{
    private final List<SoftDevice> devices = new ArrayList<>();
    private ProtectionDomain pd;

    void pd(final ProtectionDomain ownPd)
    {
        pd = ownPd;
    }

    void device(final SoftDevice device)
    {
        if (device != null)
        {
            devices.add(device);
        }
    }

    void devices(final List<SoftDevice> held)
    {
        devices.addAll(held);
    }

    /** Deallocate the PD (left alone while the application still has a QP or MR in it), release the contexts. */
    void run(final CmDevices cmDevices)
    {
        if (pd != null)
        {
            try
            {
                pd.close();
            }
            catch (final RdmaException ex)
            {
                // EBUSY: the application still has a QP or MR in it (rdma_destroy_qp was not called)
            }
        }
        for (final SoftDevice device : devices)
        {
            cmDevices.release(device);
        }
    }
}
