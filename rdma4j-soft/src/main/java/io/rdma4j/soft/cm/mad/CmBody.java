package io.rdma4j.soft.cm.mad;

/**
 * Flyweight over the body of a CM message, wrapped at the start of its MAD: offsets count from the first byte
 * after the MAD header, as the IBTA tables do. Every body ends in private data running to the end of the MAD.
 * The CM carries no length for it, so a receiver sees the whole area and a sender zeroes what it does not fill.
 *
 * @param <B> the concrete message.
 */
public abstract class CmBody<B extends CmBody<B>> extends MadFlyweight<B>
{
    private final int privateDataAt;
    private final int privateDataLength;

    /**
     * @param privateDataAt     where the private data starts in the body.
     * @param privateDataLength the private data's length, to the end of the MAD.
     */
    CmBody(final int privateDataAt, final int privateDataLength)
    {
        super(CmMad.HEADER_LENGTH);
        this.privateDataAt = privateDataAt;
        this.privateDataLength = privateDataLength;
    }

    /**
     * @return where the private data starts in {@link #segment()}; in a REQ and a SIDR_REQ rdma_cm puts its
     * {@link CmaHeader} there.
     */
    public long privateDataOffset()
    {
        return origin() + privateDataAt;
    }

    /**
     * Copy the private data out, all of it as the peer sent it.
     *
     * @param dst where to copy; up to the message's {@code PRIVATE_DATA_LENGTH} bytes are copied.
     * @return how many bytes were copied.
     */
    public int privateData(final byte[] dst)
    {
        return copyOut(privateDataAt, privateDataLength, dst);
    }

    /**
     * Copy bytes into the private data and zero the rest of it, so that a re-used MAD carries nothing of an
     * earlier message.
     *
     * @param src    the bytes.
     * @param length how many of them, at most the message's {@code PRIVATE_DATA_LENGTH}.
     * @return this.
     */
    public B privateData(final byte[] src, final int length)
    {
        return copyIn(privateDataAt, privateDataLength, src, length);
    }
}
