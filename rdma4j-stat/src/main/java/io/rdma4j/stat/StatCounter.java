package io.rdma4j.stat;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One entry of a {@link StatFile}'s table: what a reader knows a counter by.
 *
 * @param id    never reused for another meaning, by any writer: readers find counters by it, whatever their place.
 * @param group what it counts for, as {@code rdma4j stat} groups them: {@code device}, {@code link}, {@code cm},
 *              {@code publication}, {@code subscription}; at most {@value #MAX_GROUP_BYTES} bytes of UTF-8.
 * @param name  its name, snake_case as rxe names its own; at most {@value #MAX_NAME_BYTES} bytes of UTF-8.
 */
public record StatCounter(int id, String group, String name)
{
    /** The longest group the file holds (its 16-byte field less the NUL). */
    public static final int MAX_GROUP_BYTES = StatFile.GROUP_BYTES - 1;
    /** The longest name the file holds (its 40-byte field less the NUL). */
    public static final int MAX_NAME_BYTES = StatFile.COUNTER_NAME_BYTES - 1;

    /**
     * @throws IllegalArgumentException if the group or the name is empty or longer than the file holds: a name cut
     *                                  short would be another name to a reader.
     */
    public StatCounter
    {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(name, "name");
        check("group", group, MAX_GROUP_BYTES);
        check("name", name, MAX_NAME_BYTES);
    }

    private static void check(final String what, final String text, final int max)
    {
        final int bytes = text.getBytes(StandardCharsets.UTF_8).length;
        if (bytes == 0 || bytes > max)
        {
            throw new IllegalArgumentException("a stat counter's " + what + " takes 1 to " + max +
                " bytes of UTF-8, not " + bytes + ": \"" + text + "\"");
        }
    }

    /**
     * @param table a file's table.
     * @return the same table.
     * @throws IllegalArgumentException if it is empty, longer than a reader takes, or two entries share an id or a
     *                                  name.
     */
    static List<StatCounter> checkTable(final List<StatCounter> table)
    {
        if (table.isEmpty() || table.size() > StatReader.MAX_COUNTERS)
        {
            throw new IllegalArgumentException("a stat file holds 1 to " + StatReader.MAX_COUNTERS +
                " counters, not " + table.size());
        }
        final Set<Integer> ids = new HashSet<>();
        final Set<String> names = new HashSet<>();
        for (final StatCounter counter : table)
        {
            if (!ids.add(counter.id()) || !names.add(counter.name()))
            {
                throw new IllegalArgumentException("a stat file's counters each have an id and a name of their own: " +
                    counter + " repeats one");
            }
        }
        return List.copyOf(table);
    }
}
