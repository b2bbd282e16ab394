package io.rdma4j.rmcast;

import java.net.InetSocketAddress;

/**
 * What happens to a publication's members; called on the thread that offers and does the publication's work.
 */
public interface PublicationListener
{
    /** A listener that ignores everything. */
    PublicationListener NONE = new PublicationListener()
    {
    };

    /**
     * Under {@link FlowControl#MAX} with {@link MulticastConfig#dropSlowMembers()}: a member whose reported
     * position fell more than a window behind was disconnected. What it had not delivered has left the window;
     * it is told so by an unrecoverable-loss event, and it may join again at the live position.
     *
     * @param member   the member's address (its repair connection's far end).
     * @param position the position it last reported.
     * @param head     the publication's position when it was dropped.
     */
    default void onMemberDropped(final InetSocketAddress member, final long position, final long head)
    {
    }
}
