package io.rdma4j.soft.cm;

import io.rdma4j.soft.SoftDevices;

/**
 * What the connection managers keep for the whole process, held by the provider's registry
 * ({@link SoftDevices#shared}) rather than in statics of their own: the port table (ports are the process's, as
 * the kernel's are its network namespace's), the ids the stat files show, and the shared connection manager,
 * started on first use with a shutdown hook that says goodbye for its ids.
 */
final class CmProcess
{
    private final PortTable ports = new PortTable();
    private final CmStat stat = new CmStat(SoftDevices.statSections());
    private ConnectionManager shared;

    /**
     * @return the process's one instance.
     */
    static CmProcess get()
    {
        return SoftDevices.shared(CmProcess.class, CmProcess::new);
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
     * @return the provider's connection manager, started on first use, so that a process that never uses
     *         rdma_cm never starts its thread.
     */
    synchronized ConnectionManager sharedManager()
    {
        if (shared == null)
        {
            final ConnectionManager manager = ConnectionManager.withSystemClock();
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("rdma4j-cm-farewell").unstarted(
                manager::farewell));
            shared = manager;
        }
        return shared;
    }
}
