package io.rdma4j.soft.link;

import io.rdma4j.stat.OwnerOnlyDirectory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The places of the same-host inboxes, in the order the settings name them ({@code rdma4j.soft.shm.dir}): a
 * device puts its own inbox in the first that is this user's alone, made there if missing, and looks for a
 * peer's in every one that is.
 * <p>
 * Why more than one: the first default, {@code /dev/shm/rdma4j-USER}, is a name in a directory every user may
 * write, so another user can make it first (after a reboot, before this user's first device) and every device
 * of this user refuses it. With one place that meant UDP between local peers, where any local user can send
 * from a peer's address. The second default is in the home directory, where nobody else can make anything.
 * <p>
 * Why a peer is looked for in every place, not only in the one this device chose: the places are the same for
 * every device with the same settings, but which one is usable may change between two devices' starts (the
 * squatter removes its directory after the first device chose the second place, and the next device makes the
 * first). Each would miss the other in its own place and both would speak UDP; looking in each, both find each
 * other. A place refused or missing when the device opened is checked again (never made) at a lookup, at most
 * once a second, until it is found this user's alone; from then it stays trusted, since only this user (or root) can change its owner or
 * mode.
 */
final class ShmPlaces
{
    private static final long RECHECK_MS = 1000;

    private final List<Path> paths;
    private final String namespace;
    /** Per place, the checked directory, or null until a check finds it this user's alone. */
    private final ShmDirectory[] checked;
    /**
     * Per place not yet found usable, when it may be checked again (ms since the epoch): at most once a second
     * over all peers, since a sender looks remote peers up once a second each, and a failed check of a missing
     * place costs an exception. Racy between sending threads, which at worst checks twice.
     */
    private final long[] nextCheckMs;
    /** The place of this device's inbox, or null if none is usable. */
    private final ShmDirectory own;
    /** Per place refused at the device's open, what refused it, naming the directory and its owner. */
    private final List<String> refusals;

    private ShmPlaces(final List<Path> paths, final ShmDirectory[] checked, final ShmDirectory own,
        final List<String> refusals)
    {
        this.paths = paths;
        this.namespace = ShmDirectory.namespace();
        this.checked = checked;
        this.nextCheckMs = new long[checked.length];
        this.own = own;
        this.refusals = refusals;
    }

    /**
     * Make (if missing) and check each place in turn until one is this user's alone, the place of the device's
     * inbox; then check the others without making them.
     *
     * @param places the places, in order.
     * @return them, with what refused each place that was refused (a later one missing is not).
     */
    static ShmPlaces open(final List<Path> places)
    {
        final ShmDirectory[] checked = new ShmDirectory[places.size()];
        final List<String> refusals = new ArrayList<>();
        ShmDirectory own = null;
        for (int i = 0; i < places.size(); i++)
        {
            final Path place = places.get(i);
            try
            {
                checked[i] = own == null ? ShmDirectory.open(place) : ShmDirectory.existing(place);
                own = own == null ? checked[i] : own;
            }
            catch (final IOException | RuntimeException ex)
            {
                // a later place that is missing is no refusal: a device of this user may make it after a squat
                if (own == null || !"missing".equals(OwnerOnlyDirectory.describe(place)))
                {
                    refusals.add(place + " (" + OwnerOnlyDirectory.describe(place) + "): " + ex.getMessage());
                }
            }
        }
        return new ShmPlaces(List.copyOf(places), checked, own, List.copyOf(refusals));
    }

    /**
     * @return the place of this device's inbox, or null if none is this user's alone.
     */
    ShmDirectory own()
    {
        return own;
    }

    /**
     * @return each place refused at the open, with its owner and mode and why: the device's warnings.
     */
    List<String> refusals()
    {
        return refusals;
    }

    /**
     * @return the places, in order.
     */
    List<Path> paths()
    {
        return paths;
    }

    /**
     * @return how many places there are.
     */
    int count()
    {
        return paths.size();
    }

    /**
     * @param index a place.
     * @param nowMs the time, ms since the epoch.
     * @return it, checked: this user's alone now or earlier; null if it is not (or missing), or was not a second
     *         ago. Allocates while unchecked; a sender asks on a lookup.
     */
    ShmDirectory checked(final int index, final long nowMs)
    {
        ShmDirectory place = checked[index];
        if (place == null && nowMs >= nextCheckMs[index])
        {
            nextCheckMs[index] = nowMs + RECHECK_MS;
            try
            {
                place = ShmDirectory.existing(paths.get(index));
                checked[index] = place;
            }
            catch (final IOException | RuntimeException ex)
            {
                return null;
            }
        }
        return place;
    }

    /**
     * Let the next lookup check every place not yet found usable, whenever it was last checked: for a full look at
     * a peer (a connected QP's address set), which must not miss a place made within the last second.
     */
    void recheck()
    {
        java.util.Arrays.fill(nextCheckMs, 0);
    }

    /**
     * @param address an address, as text.
     * @param port    its port.
     * @return the file its inbox would have in each place, in order.
     */
    Path[] inboxes(final String address, final int port)
    {
        final Path[] inboxes = new Path[paths.size()];
        for (int i = 0; i < inboxes.length; i++)
        {
            inboxes[i] = ShmDirectory.inbox(paths.get(i), namespace, address, port);
        }
        return inboxes;
    }

    /**
     * Delete, in each place checked so far, the inboxes their processes left at a crash.
     */
    void removeDeadInboxes()
    {
        for (int i = 0; i < checked.length; i++)
        {
            final ShmDirectory place = checked[i];
            if (place != null)
            {
                place.removeDeadInboxes();
            }
        }
    }
}
