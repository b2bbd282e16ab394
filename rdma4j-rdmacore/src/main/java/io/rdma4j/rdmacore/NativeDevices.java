package io.rdma4j.rdmacore;

import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The RDMA devices of this machine (a NIC's, or Soft-RoCE's rxe) as libibverbs lists them. Without
 * libibverbs, or with it and no device, the list is empty and {@link #unavailableReason()} says why in one
 * sentence; nothing is thrown.
 * <p>
 * The list is read once per process and kept (the devices stay referenced for as long as contexts on them may
 * be opened): a device added later is seen by the next process.
 */
public final class NativeDevices
{
    /** The native engine's name: every native device's provider, and what {@code rdma4j.provider} selects. */
    public static final String PROVIDER_NAME = "native";

    private static final Object LOCK = new Object();
    private static List<Device> devices;
    private static String unavailableReason;

    private NativeDevices()
    {
    }

    /**
     * @return the devices, empty when there are none or libibverbs is missing.
     */
    public static List<Device> list()
    {
        synchronized (LOCK)
        {
            discover();
            return devices;
        }
    }

    /**
     * @return why there is no device, or null when there are some.
     */
    public static String unavailableReason()
    {
        synchronized (LOCK)
        {
            discover();
            return unavailableReason;
        }
    }

    private static void discover()
    {
        if (devices != null)
        {
            return;
        }
        devices = List.of();
        if (!Ibverbs.LIBRARY.isLoaded())
        {
            unavailableReason = Ibverbs.LIBRARY.unavailableReason();
            return;
        }
        // before libibverbs is asked: its functions' binding and its providers' loading cost a first connection
        // hundreds of milliseconds on a host that has no device at all
        unavailableReason = UverbsDirectory.noDeviceReason(UverbsDirectory.onThisHost());
        if (unavailableReason != null)
        {
            return;
        }
        unavailableReason = Ibverbs.unavailableReason();
        if (unavailableReason != null)
        {
            return;
        }
        final MemorySegment list;
        final int count;
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment num = arena.allocate(ValueLayout.JAVA_INT);
            try
            {
                list = Ibverbs.pointer("ibv_get_device_list", "ibv_get_device_list", num);
            }
            catch (final RdmaException ex)
            {
                unavailableReason = ex.errno() == Errno.ENOSYS ?
                    "the kernel offers no RDMA (ibv_get_device_list: ENOSYS; load ib_uverbs)" :
                    "ibv_get_device_list failed: " + ex.getMessage();
                return;
            }
            count = num.get(ValueLayout.JAVA_INT, 0);
        }
        if (count == 0)
        {
            unavailableReason = Ibverbs.LIBRARY.name() + " found no RDMA device: load a NIC's driver, or add " +
                "Soft-RoCE with 'rdma link add rxe0 type rxe netdev eth0'";
            return;
        }
        final MemorySegment entries = list.reinterpret(ValueLayout.ADDRESS.byteSize() * count);
        final List<Device> found = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final MemorySegment device = entries.getAtIndex(ValueLayout.ADDRESS, i);
            final String name = ((MemorySegment)Ibverbs.call("ibv_get_device_name", device))
                .reinterpret(Long.MAX_VALUE).getString(0);
            // the GUID comes in network byte order
            final long guid = Long.reverseBytes((long)Ibverbs.call("ibv_get_device_guid", device));
            found.add(new NativeDevice(name, guid, device));
        }
        // the list stays allocated: freeing it would drop the references the devices hold
        devices = List.copyOf(found);
    }
}
