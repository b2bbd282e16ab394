package io.rdma4j.soft.provider;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

/**
 * The process's default software provider, the one {@link java.util.ServiceLoader} finds (and so
 * {@code Verbs.getDeviceList()} and {@code RdmaCm.createEventChannel()}): made on first use from the system
 * properties and the environment, or from a context given in code before that ({@link SoftProvider#launchDefault}).
 * The one process-wide state of the software device: every other instance is a program's own
 * ({@link SoftProvider#launch}).
 */
final class DefaultProvider
{
    /** Guarded by the class's monitor. */
    private static SoftStack stack;

    private DefaultProvider()
    {
    }

    /**
     * @return the default stack, made from the system properties and the environment on the first call.
     * @throws RdmaException EINVAL naming a setting whose value it does not accept.
     */
    static synchronized SoftStack stack()
    {
        if (stack == null)
        {
            stack = new SoftStack(SoftSettings.fromSystem());
        }
        return stack;
    }

    /**
     * @param settings what the default provider is to be made with.
     * @return the default stack: made with them now, or made with the same ones before.
     * @throws RdmaException EBUSY if it was made already with other settings: its devices may be in use.
     */
    static synchronized SoftStack launch(final SoftSettings settings)
    {
        if (stack == null)
        {
            stack = new SoftStack(settings);
        }
        else if (!stack.devices().settings().equals(settings))
        {
            throw new RdmaException(Errno.EBUSY, "the default soft provider was made already, with " +
                stack.devices().settings() + "; give it its context before the first device or event channel " +
                "is asked for, or launch one of its own (SoftProvider.launch) for " + settings);
        }
        return stack;
    }
}
