package io.rdma4j.tools.common;

import io.rdma4j.cm.CmId;
import io.rdma4j.verbs.RdmaException;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * The ids of connection requests a CM tool refused: an id may be destroyed only once the event that
 * brought it is acknowledged, so they wait here until then.
 */
public final class RefusedIds
{
    private final List<CmId> ids = new ArrayList<>();
    private final String tool;

    /**
     * @param tool the name cleanup failures are reported under.
     */
    public RefusedIds(final String tool)
    {
        this.tool = tool;
    }

    /**
     * @param id a refused id, destroyed at the next {@link #destroy}.
     */
    public void add(final CmId id)
    {
        ids.add(id);
    }

    /**
     * Destroy every id added since the last call; call after acknowledging the event.
     *
     * @param err where a failure to destroy one is reported.
     */
    public void destroy(final PrintWriter err)
    {
        for (final CmId id : ids)
        {
            try
            {
                id.close();
            }
            catch (final RdmaException ex)
            {
                err.printf("%s: destroying a refused id: %s%n", tool, ex.getMessage());
                err.flush();
            }
        }
        ids.clear();
    }
}
