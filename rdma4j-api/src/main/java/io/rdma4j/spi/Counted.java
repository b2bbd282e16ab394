package io.rdma4j.spi;

/**
 * A count and a noun for providers' error sentences, in the singular for one: "1 QP", "2 QPs",
 * "1 memory region".
 */
public final class Counted
{
    private Counted()
    {
    }

    /**
     * @param count  how many.
     * @param noun   the singular ("QP", "memory region", "id").
     * @return the count and the noun, with an s unless the count is 1.
     */
    public static String of(final long count, final String noun)
    {
        return count + " " + noun + (count == 1 ? "" : "s");
    }
}
