package io.rdma4j.netty;

import io.rdma4j.cm.CmId;

/**
 * Teardown steps that may fail without stopping the steps after them: a failure is logged, not thrown, since
 * there is nobody left to tell who could do anything about it.
 */
final class Teardown
{
    /** A step that does nothing. */
    static final Runnable NOTHING = () ->
    {
    };

    private static final System.Logger LOG = System.getLogger(Teardown.class.getName());

    private Teardown()
    {
    }

    /**
     * @param log     where a failure goes.
     * @param level   how loud.
     * @param failure what to say about it.
     * @param step    the step.
     */
    static void quietly(final System.Logger log, final System.Logger.Level level, final String failure,
        final Runnable step)
    {
        try
        {
            step.run();
        }
        catch (final RuntimeException ex)
        {
            log.log(level, failure, ex);
        }
    }

    /**
     * Close an id, whatever fails.
     *
     * @param id     the id.
     * @param reject refuse its connection request first.
     */
    static void closeId(final CmId id, final boolean reject)
    {
        if (reject)
        {
            quietly(LOG, System.Logger.Level.DEBUG, "reject failed", () -> id.reject(null));
        }
        quietly(LOG, System.Logger.Level.DEBUG, "closing a connection-manager id failed", id::close);
    }
}
