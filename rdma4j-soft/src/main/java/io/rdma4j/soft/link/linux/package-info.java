/**
 * The software device's IP link on the Linux socket API through the FFM API: batches of datagrams per
 * system call ({@code recvmmsg}, {@code sendmmsg}), UDP GSO and GRO, native memory allocated once per link.
 * <p>
 * <b>Arrows.</b> Under {@code io.rdma4j.soft.link}, whose {@code IpLink} it implements and whose addresses it
 * uses; its own small binding of the C library, no dependency on rdma4j-rdmacore (this module requires the API
 * alone).
 * It uses {@code wire.Icrc} for one thing: moving a segment's ICRC to the IP identification the kernel's
 * segmentation gives it; and {@code counter} and the API's {@code Errno}. Only {@code link.socket} imports it.
 */
package io.rdma4j.soft.link.linux;
