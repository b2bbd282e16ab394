package io.rdma4j.stat;

/**
 * Where a {@link StatFile} takes its values from: the i-th counter of the table it was made with. Called by the
 * publishing thread while the counting thread goes on, so a value may be a moment old; it must never block or
 * allocate.
 */
@FunctionalInterface
public interface CounterValues
{
    /**
     * @param index a counter's place in the file's table.
     * @return its value now.
     */
    long value(int index);
}
