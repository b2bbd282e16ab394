package io.rdma4j.tools.common;

import java.util.function.Consumer;

/**
 * Teardown for the tools: close a resource and report a failure instead of throwing, so that
 * one stuck resource does not keep the others open, as the C tools go on past a failed destroy.
 */
public final class Closing
{
    private Closing()
    {
    }

    /**
     * @param resource what to close; null is skipped.
     * @param report   gets the failure's message.
     */
    public static void closeReporting(final AutoCloseable resource, final Consumer<String> report)
    {
        if (resource == null)
        {
            return;
        }
        try
        {
            resource.close();
        }
        catch (final Exception ex)
        {
            report.accept(ex.getMessage());
        }
    }
}
