package io.rdma4j.soft.provider;

import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.verbs.SoftContext;
import io.rdma4j.verbs.Context;

import java.util.Optional;

/**
 * The path an open software device's datagrams take, as the device built it. The settings alone do not say what
 * a benchmark measured: {@code rdma4j.soft.socket=auto} becomes the Linux socket or NIO by platform, and a
 * same-host path the user's inbox directory refuses falls back to UDP.
 *
 * @param socket   the socket under the device ({@link Link#socket()}: {@code linux}, {@code nio}, ...).
 * @param sameHost true if datagrams to other processes' devices on this host go through shared memory.
 * @param progress the progress mode, as rdma4j.soft.progress names it: polling, waiting or thread.
 */
public record DevicePath(String socket, boolean sameHost, String progress)
{
    /**
     * @param context an open context of any provider.
     * @return its device's path, or empty if the context is not the software device's.
     */
    public static Optional<DevicePath> of(final Context context)
    {
        if (!(context instanceof SoftContext soft))
        {
            return Optional.empty();
        }
        final SoftEngine engine = SoftEngine.of(soft);
        final Link link = engine.link();
        return Optional.of(new DevicePath(link.socket(), link.sameHost(),
            engine.pollsInline() ? "polling" : engine.waitsInline() ? "waiting" : "thread"));
    }

    /**
     * @return the words {@code rdma4j perf}'s header shows, e.g. {@code socket linux, shm on, progress polling}.
     */
    @Override
    public String toString()
    {
        return "socket " + socket + ", shm " + (sameHost ? "on" : "off") + ", progress " + progress;
    }
}
