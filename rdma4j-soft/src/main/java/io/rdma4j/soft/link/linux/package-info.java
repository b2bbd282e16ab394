/**
 * The software device's IP link on the Linux socket API through the FFM API: batches of datagrams per
 * system call ({@code recvmmsg}, {@code sendmmsg}), UDP GSO and GRO, native memory allocated once per link.
 * <p>
 * <b>Arrows.</b> Under {@code io.rdma4j.soft.link}: its own small binding of the C library, no
 * dependency on rdma4j-rdmacore (which depends on this module). It uses {@code wire.Icrc} for one thing:
 * moving a segment's ICRC to the IP identification the kernel's segmentation gives it.
 */
package io.rdma4j.soft.link.linux;
