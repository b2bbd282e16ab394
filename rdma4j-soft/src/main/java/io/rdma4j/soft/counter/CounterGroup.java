package io.rdma4j.soft.counter;

/**
 * What a {@link SoftCounter} counts for, as {@code rdma4j stat} and the stat file group them. A QP's counters are
 * device counters counted for the QP as well.
 */
public enum CounterGroup
{
    /** The device: its QPs' transport, its receive checks, QP1, the progress loop. */
    DEVICE("device"),
    /** The link under the device: the UDP socket, the same-host inboxes, injected loss. */
    LINK("link"),
    /** The connection manager's handling of the MADs this device received. */
    CM("cm");

    private final String groupName;

    CounterGroup(final String groupName)
    {
        this.groupName = groupName;
    }

    /**
     * @return the group's name as the stat file and tools write it.
     */
    public String groupName()
    {
        return groupName;
    }
}
