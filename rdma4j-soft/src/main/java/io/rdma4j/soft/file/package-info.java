/**
 * Files and directories the device shares with other processes of its user on this host (stat files,
 * same-host inboxes): made owner-only, checked before they are trusted, never reached through a link.
 * <p>
 * <b>Arrows.</b> A leaf: it imports the JDK only, so every other package of the device may import it;
 * {@code link} (the same-host inboxes' directory) and {@code stat} (the stat files' directory) do.
 */
package io.rdma4j.soft.file;
