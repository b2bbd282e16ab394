/**
 * Counters where another process of the same user reads them, as Aeron's tools read its counters file: a
 * {@link io.rdma4j.stat.StatFile} per counting object (a soft device, a publication, a subscription), each a table
 * of {@link io.rdma4j.stat.StatCounter}s with their values and a few lines of text, in an
 * {@link io.rdma4j.stat.OwnerOnlyDirectory}; the {@link io.rdma4j.stat.StatReader} behind {@code rdma4j stat}; and a
 * {@link io.rdma4j.stat.StatFilePublisher} that copies a writer's counters in from a thread of its own, for a module
 * that has none (the soft device has its own, with JMX and its describe sections).
 * <p>
 * <b>Arrows.</b> A leaf module: the JDK only. The soft device (its {@code link} package for the same-host inboxes'
 * directory too), reliable multicast and the tools import it.
 * <p>
 * <b>Threads.</b> A file is written by one thread at a time (its publisher's); a reader in another process reads it
 * (never maps it, so a file truncated meanwhile cannot SIGBUS the reader) and takes no lock.
 */
package io.rdma4j.stat;
