/**
 * Files and directories the device shares with other processes of its user on this host (stat files,
 * same-host inboxes): made owner-only, checked before they are trusted, never reached through a link.
 * <p>
 * Arrows: a leaf. It imports the JDK only, and every other package of the device may import it.
 */
package io.rdma4j.soft.file;
