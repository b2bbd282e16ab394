package io.rdma4j.rdmacore.abi;

/**
 * The sizes of glibc's {@code pthread_mutex_t} and {@code pthread_cond_t} on 64-bit Linux (x86-64 and
 * aarch64), which rdma-core's structs embed. Java never touches them; it only needs to step over them.
 */
final class Pthread
{
    /** {@code sizeof(pthread_mutex_t)}. */
    static final long MUTEX_SIZE = 40;

    /** {@code sizeof(pthread_cond_t)}. */
    static final long COND_SIZE = 48;

    private Pthread()
    {
    }
}
