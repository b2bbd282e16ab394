package io.rdma4j.soft;


import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Lines that parts of the software device other than the device itself add to a device's describe section
 * (the connection manager's ids, which belong to the provider, not to a device). The stat thread asks every
 * section once a second, holding no lock, so a section may take its own. A provider instance's one list is its
 * registry's ({@link SoftDevices#statSections()}).
 */
public final class StatSections
{
    /**
     * What a section adds for one device.
     */
    @FunctionalInterface
    public interface Section
    {
        /**
         * @param device the device whose file is being written.
         * @param text   where to append whole lines, each ending with a newline.
         */
        void describe(SoftDevice device, StringBuilder text);

        /**
         * @return a number that changes whenever what {@link #describe} writes may have changed, for a device whose
         *     packets did not move; cheaper than the lines. The default, 0, leaves the section to the publisher's
         *     slow refresh.
         */
        default long describeKey()
        {
            return 0;
        }
    }

    private final List<Section> sections = new CopyOnWriteArrayList<>();

    StatSections()
    {
    }

    /**
     * @param section a section to ask from now on, for every device.
     */
    public void add(final Section section)
    {
        sections.add(section);
    }

    /**
     * @return the sections' {@link Section#describeKey}s, combined in the sections' order.
     */
    long describeKey()
    {
        long key = 0;
        for (final Section section : sections)
        {
            try
            {
                key = key * 31 + section.describeKey();
            }
            catch (final RuntimeException ex)
            {
                // as in describe: what changed under the section counts as a change
                key = key * 31 + 1;
            }
        }
        return key;
    }

    /**
     * Append every section's lines for the device.
     *
     * @param device the device.
     * @param text   where to append.
     */
    void describe(final SoftDevice device, final StringBuilder text)
    {
        for (final Section section : sections)
        {
            final int mark = text.length();
            try
            {
                section.describe(device, text);
            }
            catch (final RuntimeException ex)
            {
                // what changed under the section (an id destroyed meanwhile) costs its lines this round, not the file
                text.setLength(mark);
            }
        }
    }
}
