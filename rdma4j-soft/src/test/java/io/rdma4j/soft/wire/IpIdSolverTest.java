package io.rdma4j.soft.wire;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class IpIdSolverTest
{
    private static final long[] BYTES_AFTER = {0, 1, 100, 255, 256, 4_126, 65_535, 70_000};

    @Test
    void shouldGiveARunOfIdentificationsTheChangesEachHasAlone()
    {
        // runs of segments as a flush numbers them (1..15, 1..63), and runs that pass 63 or wrap at 65535
        final int[][] runs = {{1, 15}, {1, 63}, {0, 64}, {60, 10}, {0xFFFE, 5}, {0x1234, 3}, {5, 1}};
        final int[] out = new int[64];
        for (final long bytesAfter : BYTES_AFTER)
        {
            for (final int[] run : runs)
            {
                IpIdSolver.changes(run[0], run[1], bytesAfter, out);
                for (int i = 0; i < run[1]; i++)
                {
                    final int id = (run[0] + i) & 0xFFFF;
                    assertEquals(IpIdSolver.change(id, bytesAfter), out[i],
                        "identification " + id + " of the run from " + run[0] + ", " + bytesAfter + " bytes after");
                }
            }
        }
    }

    @Test
    void shouldSolveEveryIdentificationFromItsChange()
    {
        for (final long bytesAfter : BYTES_AFTER)
        {
            for (int id = 0; id < 0x1_0000; id += 37)
            {
                assertEquals(id, IpIdSolver.solve(IpIdSolver.change(id, bytesAfter), bytesAfter),
                    "identification " + id + ", " + bytesAfter + " bytes after");
            }
        }
    }
}
