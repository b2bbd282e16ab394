package io.rdma4j.soft.stat;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.stat.CounterValues;
import io.rdma4j.stat.StatCounter;
import io.rdma4j.stat.StatFile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The soft device's table in a {@link StatFile}: every {@link SoftCounter}, in id order, under its group's name.
 */
public final class SoftStatFiles
{
    private static final SoftCounter[] IN_ID_ORDER = SoftCounter.inIdOrder().toArray(new SoftCounter[0]);
    /** What a device's file lists. */
    public static final List<StatCounter> TABLE = SoftCounter.inIdOrder().stream()
        .map(c -> new StatCounter(c.id(), c.group().groupName(), c.counterName())).toList();

    private SoftStatFiles()
    {
    }

    /**
     * @param dir        the directory of the files; it must be this user's alone.
     * @param deviceName the device's name.
     * @param address    its address, as text.
     * @return the device's file, mapped.
     * @throws IOException if the directory is not this user's alone, or the file cannot be made.
     */
    public static StatFile create(final Path dir, final String deviceName, final String address) throws IOException
    {
        return StatFile.create(dir, deviceName, address, TABLE);
    }

    /**
     * @param counters a device's counters.
     * @return them in {@link #TABLE}'s order, for {@link StatFile#publish}: made once per device, it allocates nothing
     *         per round.
     */
    public static CounterValues values(final Counters counters)
    {
        return index -> counters.get(IN_ID_ORDER[index]);
    }
}
