package io.rdma4j.soft.cm;

import io.rdma4j.soft.SoftDevices;

import java.util.Objects;

/**
 * What the connection managers of one provider instance share, handed to each when it is made rather than
 * found in a static: the devices their ids go on, the port table (ports are the instance's, as the kernel's are
 * its network namespace's), the ids the stat files show, and the instance's connection manager, started on first
 * use with a shutdown hook that says goodbye for its ids.
 */
public final class CmShared
{
    private final SoftDevices devices;
    private final PortTable ports = new PortTable();
    private final CmStat stat;
    private ConnectionManager manager;
    private Thread farewell;

    /**
     * @param devices the provider instance's devices: where its ids' addresses are looked up, and whose stat
     *                files show its ids.
     */
    public CmShared(final SoftDevices devices)
    {
        this.devices = Objects.requireNonNull(devices, "devices");
        this.stat = new CmStat(devices.statSections());
    }

    SoftDevices devices()
    {
        return devices;
    }

    PortTable ports()
    {
        return ports;
    }

    CmStat stat()
    {
        return stat;
    }

    /**
     * @return the instance's connection manager, started on first use, so that a program that never uses
     *         rdma_cm never starts its thread: every event channel of the instance and every device it serves
     *         share its thread, its timers and its id tables.
     */
    public synchronized ConnectionManager manager()
    {
        if (manager == null)
        {
            final ConnectionManager made = ConnectionManager.withSystemClock(this);
            farewell = Thread.ofPlatform().name("rdma4j-cm-farewell").unstarted(made::farewell);
            Runtime.getRuntime().addShutdownHook(farewell);
            manager = made;
        }
        return manager;
    }

    /**
     * The end of the instance: its ids with a connection say goodbye, as they would at exit, and its thread
     * stops. A later {@link #manager()} starts another.
     */
    public synchronized void close()
    {
        if (manager == null)
        {
            return;
        }
        try
        {
            Runtime.getRuntime().removeShutdownHook(farewell);
        }
        catch (final IllegalStateException ex)
        {
            // the process is exiting: the hook says goodbye already
        }
        manager.farewell();
        manager.stop();
        manager = null;
        farewell = null;
    }
}
