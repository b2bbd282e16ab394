package io.rdma4j.soft.config;

/**
 * The socket a device's IP link runs on, as {@code rdma4j.soft.socket} asks for it; the link's socket chooser
 * turns {@link #AUTO} into one of the others on the platform it finds.
 */
public enum SocketChoice
{
    /** The Linux socket wherever its C library binding loads, NIO elsewhere. */
    AUTO,
    /** {@link java.nio.channels.DatagramChannel}s, one datagram per system call: every platform. */
    NIO,
    /** The Linux socket API through the FFM API: batches of datagrams per system call. */
    LINUX
}
