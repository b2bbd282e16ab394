package io.rdma4j.netty;

/**
 * Teardown steps that may fail without stopping the steps after them: a failure is logged, not thrown, since
 * there is nobody left to tell who could do anything about it.
 */
final class Teardown
{
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
}
