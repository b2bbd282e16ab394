package io.rdma4j.soft.link;

import java.net.InetAddress;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

/**
 * Decides which deliveries on a {@link MemoryNetwork} are dropped, duplicated, reordered or
 * corrupted, from a seeded generator, so a failing run is replayed from its seed.
 * <p>
 * A decision is taken per delivery: once for a unicast datagram, once per member for a
 * multicast one, as losses on a real network are per receiver. For each eligible delivery the
 * injector draws four numbers, whatever the probabilities, so changing one probability does not
 * shift the decisions of the others; a corruption draws a fifth, the bit to flip. A dropped
 * delivery gets no other fault. The same seed, probabilities and sequence of sends (from one
 * thread, or in a fixed order) give the same outcomes.
 * <p>
 * Reordering holds the datagram back and releases it after the next {@link #reorderDepth()}
 * datagrams delivered to the same receiver, or by {@link MemoryNetwork#releaseHeld()}.
 * <p>
 * Probabilities and the filter may be changed at any time, from any thread.
 */
public final class FaultInjector
{
    /** The generator algorithm: its output is specified, so a seed replays on any JDK. */
    public static final String ALGORITHM = "L64X128MixRandom";

    static final int NONE = 0;
    static final int DROP = 1;
    static final int DUPLICATE = 2;
    static final int REORDER = 4;
    static final int CORRUPT = 8;

    /**
     * Chooses the deliveries that faults may hit; the others pass untouched and draw nothing.
     */
    @FunctionalInterface
    public interface Filter
    {
        /**
         * @param datagram the datagram as sent.
         * @param receiver the address of the link it is being delivered to.
         * @return true if faults may be applied to this delivery.
         */
        boolean eligible(SentDatagram datagram, InetAddress receiver);

        /**
         * @return a filter that makes every delivery eligible.
         */
        static Filter all()
        {
            return (datagram, receiver) -> true;
        }

        /**
         * @param receiver a link's address.
         * @return a filter that makes only deliveries to that link eligible.
         */
        static Filter toReceiver(final InetAddress receiver)
        {
            return (datagram, to) -> to.equals(receiver);
        }

        /**
         * @param source a sender's address.
         * @return a filter that makes only datagrams from that sender eligible.
         */
        static Filter fromSource(final InetAddress source)
        {
            return (datagram, to) -> datagram.source().equals(source);
        }

        /**
         * @param sequence a datagram's {@link SentDatagram#sequence()} on its network.
         * @return a filter that makes only that datagram eligible (all its deliveries).
         */
        static Filter nth(final long sequence)
        {
            return (datagram, to) -> datagram.sequence() == sequence;
        }

        /**
         * @param other a second filter.
         * @return a filter that makes eligible what both make eligible.
         */
        default Filter and(final Filter other)
        {
            return (datagram, to) -> eligible(datagram, to) && other.eligible(datagram, to);
        }
    }

    private final long seed;
    private final RandomGenerator random;
    private Filter filter = Filter.all();
    private double dropProbability;
    private double duplicateProbability;
    private double reorderProbability;
    private double corruptProbability;
    private int reorderDepth = 1;
    private long inspected;
    private long dropped;
    private long duplicated;
    private long reordered;
    private long corrupted;

    /**
     * @param seed the seed of the {@link #ALGORITHM} generator; all probabilities start at 0.
     */
    public FaultInjector(final long seed)
    {
        this.seed = seed;
        this.random = RandomGeneratorFactory.of(ALGORITHM).create(seed);
    }

    /**
     * @return the seed this injector was made with, to print when a test fails.
     */
    public long seed()
    {
        return seed;
    }

    /**
     * @param probability the chance, 0..1, that an eligible delivery is lost.
     * @return this.
     */
    public synchronized FaultInjector dropProbability(final double probability)
    {
        dropProbability = checkProbability(probability);
        return this;
    }

    /**
     * @return the chance that an eligible delivery is lost.
     */
    public synchronized double dropProbability()
    {
        return dropProbability;
    }

    /**
     * @param probability the chance, 0..1, that an eligible delivery arrives twice.
     * @return this.
     */
    public synchronized FaultInjector duplicateProbability(final double probability)
    {
        duplicateProbability = checkProbability(probability);
        return this;
    }

    /**
     * @return the chance that an eligible delivery arrives twice.
     */
    public synchronized double duplicateProbability()
    {
        return duplicateProbability;
    }

    /**
     * @param probability the chance, 0..1, that an eligible delivery is held back.
     * @return this.
     */
    public synchronized FaultInjector reorderProbability(final double probability)
    {
        reorderProbability = checkProbability(probability);
        return this;
    }

    /**
     * @return the chance that an eligible delivery is held back.
     */
    public synchronized double reorderProbability()
    {
        return reorderProbability;
    }

    /**
     * @param probability the chance, 0..1, that an eligible delivery has one random bit flipped.
     * @return this.
     */
    public synchronized FaultInjector corruptProbability(final double probability)
    {
        corruptProbability = checkProbability(probability);
        return this;
    }

    /**
     * @return the chance that an eligible delivery has one random bit flipped.
     */
    public synchronized double corruptProbability()
    {
        return corruptProbability;
    }

    /**
     * @param depth how many later datagrams to the same receiver overtake a held one, 1 or more.
     * @return this.
     */
    public synchronized FaultInjector reorderDepth(final int depth)
    {
        if (depth < 1)
        {
            throw new IllegalArgumentException("reorder depth must be at least 1: " + depth);
        }
        reorderDepth = depth;
        return this;
    }

    /**
     * @return how many later datagrams to the same receiver overtake a held one.
     */
    public synchronized int reorderDepth()
    {
        return reorderDepth;
    }

    /**
     * @param filter chooses the eligible deliveries; {@link Filter#all()} by default.
     * @return this.
     */
    public synchronized FaultInjector filter(final Filter filter)
    {
        this.filter = filter;
        return this;
    }

    /**
     * @return the number of eligible deliveries seen.
     */
    public synchronized long inspected()
    {
        return inspected;
    }

    /**
     * @return the number of deliveries dropped.
     */
    public synchronized long dropped()
    {
        return dropped;
    }

    /**
     * @return the number of deliveries duplicated.
     */
    public synchronized long duplicated()
    {
        return duplicated;
    }

    /**
     * @return the number of deliveries held back.
     */
    public synchronized long reordered()
    {
        return reordered;
    }

    /**
     * @return the number of deliveries corrupted.
     */
    public synchronized long corrupted()
    {
        return corrupted;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public synchronized String toString()
    {
        return "FaultInjector{seed=" + seed + ", inspected=" + inspected + ", dropped=" + dropped +
            ", duplicated=" + duplicated + ", reordered=" + reordered + ", corrupted=" + corrupted + "}";
    }

    /**
     * @return a mask of {@link #DROP}, {@link #DUPLICATE}, {@link #REORDER} and {@link #CORRUPT}.
     */
    synchronized int decide(final SentDatagram datagram, final InetAddress receiver)
    {
        if (!filter.eligible(datagram, receiver))
        {
            return NONE;
        }

        inspected++;
        final double dropDraw = random.nextDouble();
        final double duplicateDraw = random.nextDouble();
        final double reorderDraw = random.nextDouble();
        final double corruptDraw = random.nextDouble();

        if (dropDraw < dropProbability)
        {
            dropped++;
            return DROP;
        }

        int faults = NONE;
        if (duplicateDraw < duplicateProbability)
        {
            duplicated++;
            faults |= DUPLICATE;
        }
        if (reorderDraw < reorderProbability)
        {
            reordered++;
            faults |= REORDER;
        }
        if (corruptDraw < corruptProbability && datagram.length() > 0)
        {
            corrupted++;
            faults |= CORRUPT;
        }
        return faults;
    }

    /**
     * @return a copy of the bytes with one random bit flipped.
     */
    synchronized byte[] corrupt(final byte[] bytes)
    {
        final byte[] copy = bytes.clone();
        final int bit = random.nextInt(bytes.length * 8);
        copy[bit >>> 3] ^= (byte)(1 << (bit & 7));
        return copy;
    }

    private static double checkProbability(final double probability)
    {
        if (!(probability >= 0.0 && probability <= 1.0))
        {
            throw new IllegalArgumentException("a probability must be in 0..1: " + probability);
        }
        return probability;
    }
}
