package io.rdma4j.soft.cm;

import io.rdma4j.cm.EventChannel;
import io.rdma4j.soft.SoftDevices;
import io.rdma4j.soft.config.SoftSettings;

/**
 * The provider instance the connection manager's tests share, as a program's would be: the devices a
 * {@link CmFabric} registers, the port table and the stat lines of every manager a test makes. Test-only
 * state, made once per test JVM.
 */
final class CmTesting
{
    /** The devices the tests' managers find addresses on. */
    static final SoftDevices DEVICES = new SoftDevices(SoftSettings.fromSystem());
    /** What every manager a test makes shares with the others. */
    static final CmShared SHARED = new CmShared(DEVICES);

    private CmTesting()
    {
    }

    /**
     * @return the instance's own manager, on the system clock.
     */
    static ConnectionManager manager()
    {
        return SHARED.manager();
    }

    /**
     * @return a new event channel on it.
     */
    static EventChannel channel()
    {
        return SoftEventChannel.create(manager());
    }
}
