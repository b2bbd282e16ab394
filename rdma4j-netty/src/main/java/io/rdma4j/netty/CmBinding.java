package io.rdma4j.netty;

import io.rdma4j.cm.CmId;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.function.Consumer;

/**
 * Binding a channel's new connection-manager id, with the failures a socket's bind has.
 */
final class CmBinding
{
    private CmBinding()
    {
    }

    /**
     * Bind the id and make what goes with it; if either fails, close the id.
     *
     * @param id      a new id.
     * @param address the local address.
     * @param then    what to make on the bound id (a listen, an endpoint).
     * @return the id.
     * @throws BindException if the address is in use or not this host's, as a socket's bind would say.
     */
    static CmId bind(final CmId id, final InetSocketAddress address, final Consumer<CmId> then) throws BindException
    {
        try
        {
            id.bindAddr(address);
            then.accept(id);
            return id;
        }
        catch (final RdmaException ex)
        {
            Teardown.closeId(id, false);
            if (ex.errno() == Errno.EADDRINUSE || ex.errno() == Errno.EADDRNOTAVAIL)
            {
                final BindException bind = new BindException(ex.getMessage());
                bind.initCause(ex);
                throw bind;
            }
            throw ex;
        }
    }
}
