package io.rdma4j.soft;

import java.util.random.RandomGenerator;

/**
 * A random generator for tests that need to choose what a table draws: {@code nextInt(origin, bound)} answers
 * from a list, in order, round and round.
 */
public final class ScriptedRandom
{
    private ScriptedRandom()
    {
    }

    /**
     * @param values what {@code nextInt(origin, bound)} answers, in order.
     * @return the generator; any other draw throws.
     */
    public static RandomGenerator of(final int... values)
    {
        return new RandomGenerator()
        {
            private int next;

            @Override
            public long nextLong()
            {
                throw new UnsupportedOperationException();
            }

            @Override
            public int nextInt(final int origin, final int bound)
            {
                return values[next++ % values.length];
            }
        };
    }
}
