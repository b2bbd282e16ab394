package io.rdma4j.verbs;

/**
 * A post refused part-way through a chain: {@link #badIndex()} is the position of the first
 * request not posted (the C API's {@code bad_wr}); those before it were posted.
 */
public final class PostException extends RdmaException
{
    private static final long serialVersionUID = 1L;

    private final int badIndex;

    /**
     * @param errno    why.
     * @param message  the sentence.
     * @param badIndex position in the chain of the refused request, from 0.
     */
    public PostException(final Errno errno, final String message, final int badIndex)
    {
        super(errno, message + " (work request " + badIndex + " of the chain)");
        this.badIndex = badIndex;
    }

    /**
     * @return position in the chain of the first request not posted.
     */
    public int badIndex()
    {
        return badIndex;
    }
}
