/**
 * A device's multicast group table: MGID to attached QPs, with the device limits (groups, QPs per
 * group, attachments in all) and the seed's rules (attaching twice gives one copy, one detach undoes
 * it, a refused attach changes nothing).
 * <p>
 * <b>Arrows.</b> A leaf of the device: it imports only the API ({@code Gid} and the errors), and only
 * the device ({@code soft}) imports it, when QPs attach and detach and when a group's packet is fanned out to
 * its members.
 * <p>
 * <b>Threads.</b> Attach and detach on application threads; lookups on the receiving thread read a
 * snapshot, so fan-out takes no lock and allocates nothing.
 */
package io.rdma4j.soft.mcast;
